import { createHash, randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actorFor, createAuth, createOperator } from "@levelrail/auth";
import { listSessions } from "@levelrail/auth/account";
import { ssoProviderId } from "@levelrail/auth/sso";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { account, session as sessionTable, user } from "@levelrail/db/schema/auth";
import { domainProof } from "@levelrail/db/schema/domains";
import { nodeChange } from "@levelrail/db/schema/nodes";
import { installationAdmin } from "@levelrail/db/schema/operator";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { ssoConnection, ssoEmailDomain } from "@levelrail/db/schema/sso";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { CookieJar, type TestIdp, loginAtProvider, startOidcProvider } from "@levelrail/testkit/oidc";
import { seedMember, seedOrg, testKit } from "@levelrail/testkit/seed";
import { secretOf, totp } from "@levelrail/testkit/totp";
import type { Ctx } from "../context";
import { changeNode } from "../node/change";
import { listProjects } from "../project/list";
import { listMembers } from "./members";
import { endOwnOtherSessions, endOwnSession } from "./security";
import { getSso, setSso, ssoBackend } from "./sso";

// Sign-in through a real OpenID provider on loopback (oidc-provider), driven as a browser would:
// the panel's better-auth handler answers the authorization URL, the provider's login and consent
// pages are walked, and its redirect is handed to the panel's callback.

const PANEL = "http://127.0.0.1:3600";
const kit = testKit();
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let auth: ReturnType<typeof createAuth>;
let idp: TestIdp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let owner: Ctx;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "sso");
  ({ db, sql } = createDb(database.url));
  org = await seedOrg(db, "sso", kit);
  owner = { ...org, allowPrivateTargets: true };
  idp = await startOidcProvider([`${PANEL}/api/auth/callback/${ssoProviderId(org.orgId)}`]);
  auth = createAuth({ db, masterKey: randomBytes(32), baseURL: PANEL, trustedOrigins: [PANEL], sso: ssoBackend(db, kit.keyring, { allowPrivate: true }) });
  await setSso({
    ctx: owner,
    orgId: org.orgId,
    input: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domain: "corp.example", defaultRole: "developer", groupsClaim: "groups", groupRoles: { "platform-admins": "admin", auditors: "viewer" } },
  });
  await proveEmailDomain(org.orgId, "corp.example");
}, 120_000);

/**
 * The state the worker leaves once it has found the organization's TXT record for an email domain
 * (that check itself: apps/worker's sso-domains test): the domain listed, its proof verified.
 */
async function proveEmailDomain(orgId: string, domain: string, status: "verified" | "failed" = "verified") {
  await db.insert(ssoEmailDomain).values({ orgId, domain }).onConflictDoNothing();
  await db
    .insert(domainProof)
    .values({ orgId, domain, status, verifiedAt: new Date(), lastSeenAt: new Date() })
    .onConflictDoUpdate({ target: [domainProof.orgId, domainProof.domain], set: { status } });
}

afterAll(async () => {
  await idp?.close();
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const newEmail = (label: string) => `${label}-${randomBytes(3).toString("hex")}@corp.example`;

/** The panel's answer to "Sign in with SSO": the provider's authorization URL, with the browser's cookies. */
async function startSignIn() {
  const jar = new CookieJar();
  const res = await auth.handler(
    new Request(`${PANEL}/api/auth/sign-in/social`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: PANEL },
      body: JSON.stringify({ provider: ssoProviderId(org.orgId), callbackURL: "/", errorCallbackURL: "/login" }),
    }),
  );
  jar.take(res);
  expect(res.status).toBe(200);
  const { url } = (await res.json()) as { url: string };
  return { jar, url: new URL(url) };
}

/** The provider's redirect handed to the panel's callback; the browser's session, if one was opened. */
async function finish(jar: CookieJar, callbackUrl: string) {
  const res = await auth.handler(new Request(callbackUrl, { headers: { cookie: jar.header() } }));
  jar.take(res);
  const session = await auth.api.getSession({ headers: new Headers({ cookie: jar.header() }) });
  return { location: res.headers.get("location") ?? "", session };
}

async function signInThroughSso(email: string) {
  const { jar, url } = await startSignIn();
  return { jar, ...(await finish(jar, await loginAtProvider(url.toString(), email))) };
}

const roleOf = async (userId: string) =>
  (await db.select({ role: membership.role }).from(membership).where(and(eq(membership.orgId, org.orgId), eq(membership.userId, userId))))[0]?.role ?? null;
const userByEmail = async (email: string) => (await db.select().from(user).where(eq(user.email, email)))[0] ?? null;
const auditCount = async () => (await db.select().from(auditEntry).where(eq(auditEntry.orgId, org.orgId))).length;

describe("single sign-on through a real OpenID provider", () => {
  it("the authorization request uses the code flow with PKCE (S256), a state and a nonce", async () => {
    const { url } = await startSignIn();
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toBeTruthy();
    expect(url.searchParams.get("nonce")).toBeTruthy();
  });

  it("a new user signs up through it and joins with the default role; the session is marked as the organization's SSO", async () => {
    const email = newEmail("newcomer");
    const before = await auditCount();
    const { location, session } = await signInThroughSso(email);
    expect(location).not.toContain("error");
    expect(session?.user.email).toBe(email);
    expect(session?.session.ssoOrgId).toBe(org.orgId);
    expect(await roleOf(session!.user.id)).toBe("developer");
    const entries = await db.select().from(auditEntry).where(and(eq(auditEntry.orgId, org.orgId), eq(auditEntry.targetId, session!.user.id)));
    expect(entries.map((e) => [e.action, e.actorName, e.fields])).toEqual([["member.sso-join", email, ["role"]]]);
    expect(await auditCount()).toBe(before + 1);
    // Signing in again changes nothing and records nothing.
    await signInThroughSso(email);
    expect(await auditCount()).toBe(before + 1);
  });

  it("the groups claim maps to roles: a newcomer joins with the mapped role, a member's role follows the map when it names one", async () => {
    const email = newEmail("mapped");
    idp.groups.set(email, ["engineering", "platform-admins"]);
    const first = await signInThroughSso(email);
    expect(await roleOf(first.session!.user.id)).toBe("admin");
    idp.groups.set(email, ["auditors"]);
    await signInThroughSso(email);
    expect(await roleOf(first.session!.user.id)).toBe("viewer");
    // Groups the map does not name leave the role alone.
    idp.groups.set(email, ["engineering"]);
    await signInThroughSso(email);
    expect(await roleOf(first.session!.user.id)).toBe("viewer");
  });

  it("a callback with a wrong state signs nobody in", async () => {
    const email = newEmail("wrong-state");
    const { jar, url } = await startSignIn();
    const back = new URL(await loginAtProvider(url.toString(), email));
    expect(back.searchParams.get("code")).toBeTruthy();
    back.searchParams.set("state", randomBytes(24).toString("base64url"));
    const { location, session } = await finish(jar, back.toString());
    expect(location).toMatch(/error=/);
    expect(session).toBeNull();
    expect(await userByEmail(email)).toBeNull();
  });

  it("an ID token whose nonce is not the one the sign-in sent signs nobody in", async () => {
    const email = newEmail("wrong-nonce");
    const { jar, url } = await startSignIn();
    // The provider is asked with another nonce: state, PKCE and code are all right, the ID token's nonce is not.
    url.searchParams.set("nonce", randomBytes(16).toString("base64url"));
    const { location, session } = await finish(jar, await loginAtProvider(url.toString(), email));
    expect(location).toMatch(/error=/);
    expect(session).toBeNull();
    expect(await userByEmail(email)).toBeNull();
  });

  it("an existing account that is not a member is not taken over through an organization's provider", async () => {
    const email = newEmail("outsider");
    await createOperator(auth, email, "correct horse battery");
    const { location, session } = await signInThroughSso(email);
    expect(location).toMatch(/error=/);
    expect(session).toBeNull();
  });

  it("an organization that requires SSO refuses a password session and accepts one from its SSO", async () => {
    const member = await seedMember(db, org, "pw", "developer");
    await db.update(user).set({ email: newEmail("pw") }).where(eq(user.id, member.userId));
    const [{ email } = { email: "" }] = await db.select({ email: user.email }).from(user).where(eq(user.id, member.userId));
    const ctx = await auth.$context;
    await ctx.internalAdapter.linkAccount({ userId: member.userId, providerId: "credential", accountId: member.userId, password: await ctx.password.hash("correct horse battery") });

    // An owner whose own session is a password one cannot turn it on (they would lock themselves out).
    const passwordOwner: Ctx = { ...owner, actor: { ...owner.actor, sessionId: "s", ssoOrgId: null } };
    const refused = await setSso({ ctx: passwordOwner, orgId: org.orgId, input: { ...(await current()), requireSso: true } }).catch((e: { code: string; field?: string }) => e);
    expect(refused).toMatchObject({ code: "invalid_input", field: "requireSso" });
    await setSso({ ctx: owner, orgId: org.orgId, input: { ...(await current()), requireSso: true } });

    const signIn = await auth.api.signInEmail({ body: { email, password: "correct horse battery" }, returnHeaders: true });
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const pw = await auth.api.getSession({ headers: new Headers({ cookie }) });
    const byPassword = await actorFor(db, member.userId, email, { id: pw!.session.id, twoFactorEnabled: false, ssoOrgId: pw!.session.ssoOrgId });
    expect(byPassword.orgIds).not.toContain(org.orgId);
    expect(byPassword.ssoRequiredBy).toEqual([org.orgId]);

    // The same member through SSO (their account is linked: they are a member) reaches it.
    const sso = await signInThroughSso(email);
    expect(sso.session?.user.id).toBe(member.userId);
    const bySso = await actorFor(db, member.userId, email, { id: sso.session!.session.id, twoFactorEnabled: false, ssoOrgId: sso.session!.session.ssoOrgId });
    expect(bySso.orgIds).toContain(org.orgId);
    expect(bySso.ssoRequiredBy).toEqual([]);
    // API tokens are not affected (as with a required second factor).
    expect((await actorFor(db, member.userId, email)).orgIds).toContain(org.orgId);
    await setSso({ ctx: owner, orgId: org.orgId, input: { ...(await current()), requireSso: false } });
  });
});

/** The current settings as a PUT body (the secret left out: the sealed one is kept). */
async function current() {
  const v = await getSso({ ctx: owner, orgId: org.orgId });
  return { issuer: v.issuer, clientId: v.clientId, domain: v.domain, defaultRole: v.defaultRole, groupsClaim: v.groupsClaim, groupRoles: v.groupRoles, requireSso: v.requireSso };
}

describe("the connection's settings", () => {
  it("the client secret is sealed in the database and in no answer or audit entry", async () => {
    const view = await getSso({ ctx: owner, orgId: org.orgId });
    expect(view.clientSecretSet).toBe(true);
    const saved = await setSso({ ctx: owner, orgId: org.orgId, input: await current() });
    const [row] = await db.select().from(ssoConnection).where(eq(ssoConnection.orgId, org.orgId));
    expect(row!.clientSecretSealed).not.toContain(idp.clientSecret);
    expect(kit.keyring.open(row!.clientSecretSealed)).toBe(idp.clientSecret);
    const entries = await db.select().from(auditEntry).where(eq(auditEntry.orgId, org.orgId));
    for (const text of [JSON.stringify(view), JSON.stringify(saved), JSON.stringify(entries)]) expect(text).not.toContain(idp.clientSecret);
    expect(entries.filter((e) => e.action === "sso.create")).toHaveLength(1);
  });

  it("bad input is a 400 naming the field, and nothing is written", async () => {
    const before = { row: await db.select().from(ssoConnection), audit: await auditCount() };
    const good = await current();
    const cases: [Record<string, unknown>, Ctx, string][] = [
      [{ ...good, issuer: "ftp://id.example.com" }, owner, "issuer"],
      [{ ...good, issuer: "not a url" }, owner, "issuer"],
      [{ ...good, issuer: "https://id.example.com/?x=1" }, owner, "issuer"],
      [{ ...good, issuer: "https://127.0.0.1:9" }, { ...owner, allowPrivateTargets: false }, "issuer"],
      [{ ...good, issuer: "http://id.example.com" }, { ...owner, allowPrivateTargets: false }, "issuer"],
      [{ ...good, domain: "not a domain" }, owner, "domain"],
      [{ ...good, defaultRole: "owner" }, owner, "defaultRole"],
      [{ ...good, groupRoles: { x: "superuser" } }, owner, "groupRoles.x"],
      [{ ...good, groupsClaim: null }, owner, "groupsClaim"],
      [{ ...good, extra: 1 }, owner, "extra"],
    ];
    for (const [input, ctx, field] of cases) {
      await expect(setSso({ ctx, orgId: org.orgId, input }), JSON.stringify(input)).rejects.toMatchObject({ code: "invalid_input", field });
    }
    expect(await db.select().from(ssoConnection)).toEqual(before.row);
    expect(await auditCount()).toBe(before.audit);
  });

  it("only an owner reads or changes it", async () => {
    const admin = await seedMember(db, org, "adm", "admin");
    await expect(getSso({ ctx: admin, orgId: org.orgId })).rejects.toMatchObject({ code: "forbidden" });
  });

  it("the domain a connection names is never proven: it routes nobody to its provider and reserves nothing; a proven email domain routes", async () => {
    const provider = async (email: string) => {
      const res = await auth.handler(new Request(`${PANEL}/api/auth/sso/provider`, { method: "POST", headers: { "content-type": "application/json", origin: PANEL }, body: JSON.stringify({ email }) }));
      return { status: res.status, json: (await res.json()) as { providerId?: string } };
    };
    // Another organization names this organization's domain and a domain nobody has proven yet: both saved.
    const other = await seedOrg(db, "sso-other", kit);
    const squatted = `squat-${randomBytes(3).toString("hex")}.example`;
    const input = { ...(await current()), clientSecret: "x", requireSso: false };
    await setSso({ ctx: { ...other, allowPrivateTargets: true }, orgId: other.orgId, input: { ...input, domain: "corp.example" } });
    await setSso({ ctx: { ...other, allowPrivateTargets: true }, orgId: other.orgId, input: { ...input, domain: squatted } });
    // Nobody typing an address at it is sent to that organization's provider.
    expect(await provider(`someone@${squatted}`)).toMatchObject({ status: 404 });
    expect((await provider("someone@corp.example")).json).toEqual({ providerId: ssoProviderId(org.orgId) });
    // The organization that proves it gets it; naming it in its own connection is no 409.
    await proveEmailDomain(org.orgId, squatted);
    expect((await provider(`someone@${squatted}`)).json).toEqual({ providerId: ssoProviderId(org.orgId) });
    await setSso({ ctx: owner, orgId: org.orgId, input: { ...(await current()), domain: squatted } });
    await setSso({ ctx: owner, orgId: org.orgId, input: { ...(await current()), domain: "corp.example" } });
  });
});

/** better-auth's handler as the browser drives it, with the browser's cookies. */
async function post(jar: CookieJar, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await auth.handler(
    new Request(`${PANEL}/api/auth${path}`, { method: "POST", headers: { "content-type": "application/json", origin: PANEL, cookie: jar.header() }, body: JSON.stringify(body) }),
  );
  jar.take(res);
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
const sessionIn = (jar: CookieJar) => auth.api.getSession({ headers: new Headers({ cookie: jar.header() }) });

describe("the connection signs in only its organization's proven email domains, and its sessions act only there", () => {
  let other: Awaited<ReturnType<typeof seedOrg>>;
  beforeAll(async () => {
    other = await seedOrg(db, "sso-y", kit);
  });

  /**
   * A person with a password and a second factor (enrolled as the browser does it) who is a member
   * of the connection's organization and owner of another one.
   */
  async function person(label: string, domain: string) {
    const email = `${label}-${randomBytes(3).toString("hex")}@${domain}`;
    const password = randomBytes(12).toString("base64url");
    const { id } = await createOperator(auth, email, password);
    await db.insert(membership).values([
      { orgId: org.orgId, userId: id, role: "developer" },
      { orgId: other.orgId, userId: id, role: "owner" },
    ]);
    const jar = new CookieJar();
    expect((await post(jar, "/sign-in/email", { email, password })).status).toBe(200);
    const enable = await post(jar, "/two-factor/enable", { password });
    const secret = secretOf(String(enable.json.totpURI));
    expect((await post(jar, "/two-factor/verify-totp", { code: totp(secret) })).status).toBe(200);
    await post(jar, "/sign-out", {});
    return { id, email, password, secret };
  }
  const accountsOf = async (userId: string) => (await db.select({ providerId: account.providerId }).from(account).where(eq(account.userId, userId))).map((a) => a.providerId).sort();
  const sessionCount = async (userId: string) => (await db.select({ id: sessionTable.id }).from(sessionTable).where(eq(sessionTable.userId, userId))).length;
  const actorOf = async (s: NonNullable<Awaited<ReturnType<typeof sessionIn>>>) =>
    actorFor(db, s.user.id, s.user.email, { id: s.session.id, twoFactorEnabled: s.user.twoFactorEnabled === true, ssoOrgId: s.session.ssoOrgId });

  it("its provider asserting a member of another organization at a domain it has not proven is refused: no session, nothing linked or created", async () => {
    const victim = await person("victim", "other.example");
    const before = { accounts: await accountsOf(victim.id), sessions: await sessionCount(victim.id), audit: await auditCount() };
    expect(before.accounts).toEqual(["credential"]);

    const { location, session } = await signInThroughSso(victim.email);
    expect(new URL(location, PANEL).searchParams.get("error")).toBe("email_domain_not_proven");
    expect(new URL(location, PANEL).searchParams.get("error_description")).toContain("other.example is not one of them");
    expect(session).toBeNull();
    expect(await accountsOf(victim.id)).toEqual(before.accounts);
    expect(await sessionCount(victim.id)).toBe(before.sessions);
    expect(await auditCount()).toBe(before.audit);

    // Nobody new is made for such an email either.
    const stranger = `newcomer-${randomBytes(3).toString("hex")}@other.example`;
    const refused = await signInThroughSso(stranger);
    expect(new URL(refused.location, PANEL).searchParams.get("error")).toBe("email_domain_not_proven");
    expect(refused.session).toBeNull();
    expect(await userByEmail(stranger)).toBeNull();
  });

  it("at a proven domain the session reaches its organization and is refused in the other (403 saying how to sign in); a password sign-in still asks for the second factor", async () => {
    const member = await person("member", "proven.example");
    await proveEmailDomain(org.orgId, "proven.example");

    // "Sign in with SSO" by the work address finds the organization that proved its domain.
    expect((await post(new CookieJar(), "/sso/provider", { email: member.email })).json).toEqual({ providerId: ssoProviderId(org.orgId) });
    const sso = await signInThroughSso(member.email);
    expect(sso.session?.user.id).toBe(member.id);
    expect(sso.session?.session.ssoOrgId).toBe(org.orgId);
    const actor = await actorOf(sso.session!);
    expect(actor.orgIds).toEqual([org.orgId]);
    expect(actor.ssoSessionRefusedBy).toEqual([other.orgId]);
    const ctx: Ctx = { db, actor, kit };
    expect((await listMembers({ ctx, orgId: org.orgId })).map((m) => m.userId)).toContain(member.id);
    const refused = await listMembers({ ctx, orgId: other.orgId }).catch((e: { code: string; message: string }) => e);
    expect(refused).toMatchObject({ code: "forbidden" });
    expect((refused as { message: string }).message).toMatch(/single sign-on and acts only there.*password and second factor, or its own single sign-on/);
    // Nothing of the other organization is reachable by id either.
    expect((await listProjects({ ctx })).map((p) => p.id)).not.toContain(other.projectId);

    // Nor does it change how the account signs in: the password stays linked, the other sessions stay.
    const [password] = await db.select({ id: account.id }).from(account).where(and(eq(account.userId, member.id), eq(account.providerId, "credential")));
    const unlink = await post(sso.jar, "/unlink-account", { accountId: password!.id });
    expect(unlink.status).toBe(403);
    expect(await accountsOf(member.id)).toEqual(["credential", ssoProviderId(org.orgId)]);
    expect((await post(sso.jar, "/revoke-other-sessions", {})).status).toBe(403);
    // The panel's own session routes: it sees and ends only sessions this organization's single sign-on opened.
    const elsewhere = new CookieJar();
    await post(elsewhere, "/sign-in/email", { email: member.email, password: member.password });
    await post(elsewhere, "/two-factor/verify-totp", { code: totp(member.secret) });
    const passwordSession = (await sessionIn(elsewhere))!.session.id;
    expect((await listSessions(db, member.id, actor.sessionId, actor.ssoOrgId)).map((x) => x.id)).toEqual([sso.session!.session.id]);
    await expect(endOwnSession({ ctx, id: passwordSession })).rejects.toMatchObject({ code: "not_found" });
    expect(await endOwnOtherSessions({ ctx })).toBe(0);
    expect(await sessionIn(elsewhere)).not.toBeNull();

    // The same person with their password: the second factor is asked, no session until it is given.
    const jar = new CookieJar();
    const first = await post(jar, "/sign-in/email", { email: member.email, password: member.password });
    expect(first.json.twoFactorRedirect).toBe(true);
    expect(await sessionIn(jar)).toBeNull();
    expect((await post(jar, "/two-factor/verify-totp", { code: totp(member.secret) })).status).toBe(200);
    const full = await actorOf((await sessionIn(jar))!);
    expect(full.ssoOrgId).toBeNull();
    expect(full.orgIds.sort()).toEqual([org.orgId, other.orgId].sort());
    expect(full.ssoSessionRefusedBy).toEqual([]);
  });

  it("of better-auth's routes, the session uses only get-session and sign-out (and signing in again): nothing of the account is reachable through it", async () => {
    const member = await person("routes", "routes.example");
    await proveEmailDomain(org.orgId, "routes.example");
    const sso = await signInThroughSso(member.email);
    expect(sso.session?.session.ssoOrgId).toBe(org.orgId);
    const get = async (path: string) => (await auth.handler(new Request(`${PANEL}/api/auth${path}`, { headers: { cookie: sso.jar.header(), origin: PANEL } }))).status;

    // Guessing the password, reading every session's token, the accounts, changing the user, using the second factor: all refused.
    expect((await post(sso.jar, "/verify-password", { password: member.password })).status).toBe(403);
    expect((await post(sso.jar, "/verify-password", { password: "wrong guess" })).status).toBe(403);
    expect(await get("/list-sessions")).toBe(403);
    expect(await get("/list-accounts")).toBe(403);
    expect((await post(sso.jar, "/update-user", { name: "renamed" })).status).toBe(403);
    expect((await post(sso.jar, "/update-session", {})).status).toBe(403);
    expect((await post(sso.jar, "/two-factor/verify-totp", { code: totp(member.secret) })).status).toBe(403);
    expect((await userByEmail(member.email))?.name).not.toBe("renamed");

    // Reading itself and signing out work.
    expect(await get("/get-session")).toBe(200);
    expect((await post(sso.jar, "/sign-out", {})).status).toBe(200);
    expect(await sessionIn(sso.jar)).toBeNull();

    // A password session (with its second factor) still uses them.
    const jar = new CookieJar();
    await post(jar, "/sign-in/email", { email: member.email, password: member.password });
    await post(jar, "/two-factor/verify-totp", { code: totp(member.secret) });
    expect((await post(jar, "/verify-password", { password: member.password })).status).toBe(200);
    expect((await auth.handler(new Request(`${PANEL}/api/auth/list-sessions`, { headers: { cookie: jar.header(), origin: PANEL } }))).status).toBe(200);
  });

  it("an installation administrator signed in through an organization's single sign-on is no installation administrator; by password they are", async () => {
    const member = await person("installer", "installer.example");
    await proveEmailDomain(org.orgId, "installer.example");
    await db.insert(installationAdmin).values({ userId: member.id });
    const swarm = { nodes: async () => ({ engine: "swarm" as const, nodes: [{ id: "wrk1", name: "wrk1", availability: "active", labels: {} }] }) };
    try {
      const sso = await signInThroughSso(member.email);
      const bySso = await actorOf(sso.session!);
      expect(bySso.installationAdmin).toBe(false);
      const refused = await changeNode({ ctx: { db, actor: bySso }, reader: swarm, nodeId: "wrk1", input: { availability: "drain" } }).catch((e: { code: string }) => e);
      expect(refused).toMatchObject({ code: "forbidden" });
      expect(await db.select().from(nodeChange)).toEqual([]);

      const jar = new CookieJar();
      await post(jar, "/sign-in/email", { email: member.email, password: member.password });
      await post(jar, "/two-factor/verify-totp", { code: totp(member.secret) });
      const byPassword = await actorOf((await sessionIn(jar))!);
      expect(byPassword.installationAdmin).toBe(true);
      await changeNode({ ctx: { db, actor: byPassword }, reader: swarm, nodeId: "wrk1", input: { availability: "drain" } });
      expect((await db.select().from(nodeChange)).map((r) => r.nodeId)).toEqual(["wrk1"]);
    } finally {
      await db.delete(installationAdmin).where(eq(installationAdmin.userId, member.id));
    }
  });

  it("an ID token handed to the panel directly (no authorization code flow) opens no session through the connection", async () => {
    // An organization whose provider puts the email in the ID token itself, with a member who signed in through it once.
    const z = await seedOrg(db, "sso-z", kit);
    const zIdp = await startOidcProvider([`${PANEL}/api/auth/callback/${ssoProviderId(z.orgId)}`], { claimsInIdToken: true });
    try {
      await setSso({ ctx: { ...z, allowPrivateTargets: true }, orgId: z.orgId, input: { issuer: zIdp.issuer, clientId: zIdp.clientId, clientSecret: zIdp.clientSecret, domain: "z.example" } });
      await proveEmailDomain(z.orgId, "z.example");
      await idTokenSignIn(z.orgId, zIdp);
    } finally {
      await zIdp.close();
    }
  });

  async function idTokenSignIn(orgId: string, provider: TestIdp) {
    const email = `zed-${randomBytes(3).toString("hex")}@z.example`;
    const { id } = await createOperator(auth, email, randomBytes(12).toString("base64url"));
    await db.insert(membership).values([
      { orgId, userId: id, role: "developer" },
      { orgId: other.orgId, userId: id, role: "owner" },
    ]);
    const viaCode = new CookieJar();
    const started = await post(viaCode, "/sign-in/social", { provider: ssoProviderId(orgId), callbackURL: "/", errorCallbackURL: "/login" });
    const back = await auth.handler(new Request(await loginAtProvider(String(started.json.url), email), { headers: { cookie: viaCode.header() } }));
    viaCode.take(back);
    expect((await sessionIn(viaCode))?.session.ssoOrgId).toBe(orgId);
    const member = { id, email };
    const sessions = await sessionCount(member.id);
    const idp = provider;
    const org = { orgId };

    // A valid ID token for the member, as whoever runs the identity provider can get one.
    const nonce = randomBytes(16).toString("base64url");
    const verifier = randomBytes(32).toString("base64url");
    const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as { authorization_endpoint: string; token_endpoint: string };
    const redirectUri = `${PANEL}/api/auth/callback/${ssoProviderId(org.orgId)}`;
    const authorize = new URL(discovery.authorization_endpoint);
    for (const [k, v] of Object.entries({ client_id: idp.clientId, response_type: "code", scope: "openid email", redirect_uri: redirectUri, nonce, state: "s", code_challenge_method: "S256", code_challenge: createHash("sha256").update(verifier).digest("base64url") })) {
      authorize.searchParams.set(k, v);
    }
    const code = new URL(await loginAtProvider(authorize.toString(), member.email)).searchParams.get("code") ?? "";
    const tokens = (await (
      await fetch(discovery.token_endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: idp.clientId, client_secret: idp.clientSecret, code_verifier: verifier }),
      })
    ).json()) as { id_token?: string };
    expect(tokens.id_token).toBeTruthy();

    const jar = new CookieJar();
    const res = await post(jar, "/sign-in/social", { provider: ssoProviderId(org.orgId), idToken: { token: tokens.id_token, nonce } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await sessionIn(jar)).toBeNull();
    expect(await sessionCount(member.id)).toBe(sessions);
  }

  it("a domain whose proof lapsed signs in nobody, not even a linked member", async () => {
    const member = await person("lapsed", "lapsed.example");
    await proveEmailDomain(org.orgId, "lapsed.example");
    expect((await signInThroughSso(member.email)).session?.user.id).toBe(member.id);
    expect(await accountsOf(member.id)).toEqual(["credential", ssoProviderId(org.orgId)]);
    const sessions = await sessionCount(member.id);

    await proveEmailDomain(org.orgId, "lapsed.example", "failed");
    const again = await signInThroughSso(member.email);
    expect(new URL(again.location, PANEL).searchParams.get("error")).toBe("email_domain_not_proven");
    expect(again.session).toBeNull();
    expect(await sessionCount(member.id)).toBe(sessions);
  });
});

describe("an organization's requirement refuses a session only in that organization", () => {
  /** A member of `org` (the connection's) and owner of another organization, signed in by password (no second factor). */
  async function passwordMember(label: string) {
    const other = await seedOrg(db, `req-${label}`, kit);
    const email = newEmail(label);
    const password = randomBytes(12).toString("base64url");
    const { id } = await createOperator(auth, email, password);
    await db.insert(membership).values([
      { orgId: org.orgId, userId: id, role: "developer" },
      { orgId: other.orgId, userId: id, role: "owner" },
    ]);
    const jar = new CookieJar();
    expect((await post(jar, "/sign-in/email", { email, password })).status).toBe(200);
    const s = (await sessionIn(jar))!;
    const actor = await actorFor(db, s.user.id, s.user.email, { id: s.session.id, twoFactorEnabled: s.user.twoFactorEnabled === true, ssoOrgId: s.session.ssoOrgId });
    return { id, other, ctx: { db, actor, kit } satisfies Ctx };
  }

  it("single sign-on: a password session works in the member's other organization; the one requiring SSO answers 403 saying to sign in with SSO", async () => {
    await setSso({ ctx: owner, orgId: org.orgId, input: { ...(await current()), requireSso: true } });
    try {
      const { id, other, ctx } = await passwordMember("sso-req");
      expect(ctx.actor.ssoRequiredBy).toEqual([org.orgId]);
      expect((await listMembers({ ctx, orgId: other.orgId })).map((m) => m.userId)).toContain(id);
      expect((await listProjects({ ctx })).map((p) => p.id)).toEqual([other.projectId]);
      const refused = await listMembers({ ctx, orgId: org.orgId }).catch((e: { code: string; message: string }) => e);
      expect(refused).toMatchObject({ code: "forbidden", message: expect.stringMatching(/requires single sign-on: sign out and sign in with SSO/) });
    } finally {
      await setSso({ ctx: owner, orgId: org.orgId, input: { ...(await current()), requireSso: false } });
    }
  });

  it("a second factor: a session without one works in the member's other organization; the one requiring it answers 403 saying to enrol one", async () => {
    await db.update(organization).set({ require2fa: true }).where(eq(organization.id, org.orgId));
    try {
      const { id, other, ctx } = await passwordMember("2fa-req");
      expect(ctx.actor.secondFactorRequiredBy).toEqual([org.orgId]);
      expect((await listMembers({ ctx, orgId: other.orgId })).map((m) => m.userId)).toContain(id);
      const refused = await listMembers({ ctx, orgId: org.orgId }).catch((e: { code: string; message: string }) => e);
      expect(refused).toMatchObject({ code: "forbidden", message: expect.stringMatching(/requires a second factor: enrol one on your account page/) });
    } finally {
      await db.update(organization).set({ require2fa: false }).where(eq(organization.id, org.orgId));
    }
  });
});
