// The second factor (better-auth's twoFactor plugin as createAuth configures it) and sessions,
// through better-auth's own HTTP handler as the browser drives it, against a fresh PostgreSQL.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Auth, SECOND_FACTOR_LOCKOUT, actorFor, createAuth, createOperator } from "@levelrail/auth";
import { endOtherSessions, endSession, listSessions, secondFactorOf } from "@levelrail/auth/account";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { session, twoFactor, user } from "@levelrail/db/schema/auth";
import { installationAdmin } from "@levelrail/db/schema/operator";
import { membership } from "@levelrail/db/schema/orgs";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { testKit } from "@levelrail/testkit/seed";
import { secretOf, totp } from "@levelrail/testkit/totp";
import type { Ctx } from "../context";
import { bootstrapOrg } from "./create";
import { listMembers } from "./members";
import { endOwnOtherSessions, getOrgSecurity, resetMemberSecondFactor, setOrgSecurity, signOutMember } from "./security";

const base = "http://localhost:3500";
const root = join(import.meta.dirname, "..", "..", "..", "..");
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let auth: Auth;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "two_factor");
  ({ db, sql } = createDb(database.url));
  auth = createAuth({ db, masterKey: randomBytes(32), baseURL: base, trustedOrigins: [base] });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

/** One browser: its cookies, kept across calls to better-auth's handler. */
class Browser {
  cookies = new Map<string, string>();
  constructor(readonly userAgent = "test-browser/1") {}
  get header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  async post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await auth.handler(
      new Request(`${base}/api/auth${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base, cookie: this.header, "user-agent": this.userAgent },
        body: JSON.stringify(body),
      }),
    );
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const [k, ...v] = pair!.split("=");
      const value = v.join("=");
      if (value === "" || /max-age=0/i.test(c)) this.cookies.delete(k!);
      else this.cookies.set(k!, value);
    }
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }
  async sessionOf() {
    return auth.api.getSession({ headers: new Headers({ cookie: this.header }) });
  }
}

async function operator(label: string) {
  const email = `${label}-${randomBytes(3).toString("hex")}@test.levelrail.local`;
  const password = randomBytes(12).toString("base64url");
  const { id } = await createOperator(auth, email, password);
  return { id, email, password };
}

/** Signs in with the password and enrols TOTP: answers the secret and the recovery codes. */
async function enrolled(label: string) {
  const op = await operator(label);
  const b = new Browser();
  expect((await b.post("/sign-in/email", { email: op.email, password: op.password })).status).toBe(200);
  const enable = await b.post("/two-factor/enable", { password: op.password });
  expect(enable.status).toBe(200);
  const secret = secretOf(String(enable.json.totpURI));
  const backupCodes = enable.json.backupCodes as string[];
  // Not on until a code confirms it.
  expect((await secondFactorOf(db, op.id)).enabled).toBe(false);
  expect((await b.post("/two-factor/verify-totp", { code: totp(secret) })).status).toBe(200);
  expect((await secondFactorOf(db, op.id)).enabled).toBe(true);
  return { ...op, secret, backupCodes };
}

async function ctxOf(userId: string, email: string): Promise<Ctx> {
  return { db, actor: await actorFor(db, userId, email), kit: testKit() };
}

describe("the second factor", () => {
  it("enrols with a confirming code; sign-in then asks for a code and opens a session only with the right one", async () => {
    const op = await enrolled("enrol");
    expect(String(op.backupCodes.length)).toBe("10");
    const b = new Browser();
    const first = await b.post("/sign-in/email", { email: op.email, password: op.password });
    expect(first.json.twoFactorRedirect).toBe(true);
    expect(await b.sessionOf()).toBeNull();
    expect((await b.post("/two-factor/verify-totp", { code: "000000" === totp(op.secret) ? "111111" : "000000" })).status).toBe(401);
    expect((await b.post("/two-factor/verify-totp", { code: totp(op.secret) })).status).toBe(200);
    expect((await b.sessionOf())?.user.email).toBe(op.email);
  });

  it(`${SECOND_FACTOR_LOCKOUT.maxFailedAttempts} wrong codes end the sign-in attempt and lock the second factor for ${SECOND_FACTOR_LOCKOUT.durationSeconds / 60} minutes`, async () => {
    const op = await enrolled("lock");
    const b = new Browser();
    await b.post("/sign-in/email", { email: op.email, password: op.password });
    const wrong = totp(op.secret) === "123456" ? "654321" : "123456";
    for (let i = 0; i < SECOND_FACTOR_LOCKOUT.maxFailedAttempts; i++) {
      expect((await b.post("/two-factor/verify-totp", { code: wrong })).status).toBe(401);
    }
    // Even the right code is refused now, in this attempt and in a new one.
    const after = await b.post("/two-factor/verify-totp", { code: totp(op.secret) });
    expect(after.status).toBe(429);
    const again = new Browser();
    expect((await again.post("/sign-in/email", { email: op.email, password: op.password })).json.twoFactorRedirect).toBe(true);
    expect((await again.post("/two-factor/verify-totp", { code: totp(op.secret) })).status).toBe(429);
    const locked = await secondFactorOf(db, op.id);
    const lockedFor = new Date(locked.lockedUntil ?? 0).getTime() - Date.now();
    expect(lockedFor).toBeGreaterThan(SECOND_FACTOR_LOCKOUT.durationSeconds * 1000 - 60_000);
    expect(lockedFor).toBeLessThanOrEqual(SECOND_FACTOR_LOCKOUT.durationSeconds * 1000);
    expect(await again.sessionOf()).toBeNull();
  });

  it("a recovery code signs in once; the same code a second time is refused", async () => {
    const op = await enrolled("recovery");
    const code = op.backupCodes[0]!;
    const b = new Browser();
    await b.post("/sign-in/email", { email: op.email, password: op.password });
    expect((await b.post("/two-factor/verify-backup-code", { code })).status).toBe(200);
    expect((await b.sessionOf())?.user.email).toBe(op.email);
    const c = new Browser();
    await c.post("/sign-in/email", { email: op.email, password: op.password });
    expect((await c.post("/two-factor/verify-backup-code", { code })).status).toBe(401);
    expect((await c.post("/two-factor/verify-backup-code", { code: op.backupCodes[1]! })).status).toBe(200);
  });

  it("an owner resets a member's second factor (a lost device); a stranger and a non-owner cannot", async () => {
    const owner = await enrolled("owner");
    const member = await enrolled("member");
    const stranger = await operator("stranger");
    const { org } = await bootstrapOrg(db, owner.id, `sec-${randomBytes(3).toString("hex")}`);
    await db.insert(membership).values({ orgId: org.id, userId: member.id, role: "developer" });
    await expect(resetMemberSecondFactor({ ctx: await ctxOf(stranger.id, stranger.email), orgId: org.id, userId: member.id })).rejects.toMatchObject({ code: "not_found" });
    await expect(resetMemberSecondFactor({ ctx: await ctxOf(member.id, member.email), orgId: org.id, userId: owner.id })).rejects.toMatchObject({
      code: "forbidden",
      message: "needs the owner role; you are a developer",
    });
    await expect(resetMemberSecondFactor({ ctx: await ctxOf(owner.id, owner.email), orgId: org.id, userId: stranger.id })).rejects.toMatchObject({ code: "not_found" });
    expect(await resetMemberSecondFactor({ ctx: await ctxOf(owner.id, owner.email), orgId: org.id, userId: member.id })).toEqual({ userId: member.id, hadSecondFactor: true });
    expect(await db.select().from(twoFactor).where(eq(twoFactor.userId, member.id))).toEqual([]);
    const b = new Browser();
    const signIn = await b.post("/sign-in/email", { email: member.email, password: member.password });
    expect(signIn.json.twoFactorRedirect).toBeUndefined();
    expect((await b.sessionOf())?.user.email).toBe(member.email);
  });

  it("`levelrail user reset-2fa --email` removes it on the host", async () => {
    const op = await enrolled("cli");
    const r = spawnSync(join(root, "node_modules", ".bin", "tsx"), [join(root, "scripts", "cli.ts"), "user", "reset-2fa", "--email", op.email], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, LEVELRAIL_DATA_DIR: "/nonexistent" },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`removed the second factor of ${op.email}`);
    expect((await db.select({ on: user.twoFactorEnabled }).from(user).where(eq(user.id, op.id)))[0]?.on).toBe(false);
    const again = spawnSync(join(root, "node_modules", ".bin", "tsx"), [join(root, "scripts", "cli.ts"), "user", "reset-2fa", "--email", "nobody@test.levelrail.local"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, LEVELRAIL_DATA_DIR: "/nonexistent" },
      encoding: "utf8",
    });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("no operator with email nobody@test.levelrail.local");
  }, 60_000);

  it("require2fa: only an owner with a second factor turns it on; a member without one loses the organization from a session, not from a token", async () => {
    const owner = await operator("req-owner");
    const { org } = await bootstrapOrg(db, owner.id, `req-${randomBytes(3).toString("hex")}`);
    const ownerCtx = await ctxOf(owner.id, owner.email);
    await expect(setOrgSecurity({ ctx: ownerCtx, orgId: org.id, input: { require2fa: true } })).rejects.toMatchObject({ field: "require2fa" });
    await db.update(user).set({ twoFactorEnabled: true }).where(eq(user.id, owner.id));
    expect(await setOrgSecurity({ ctx: ownerCtx, orgId: org.id, input: { require2fa: true } })).toMatchObject({ orgId: org.id, require2fa: true, owner: true });
    const member = await operator("req-member");
    await db.insert(membership).values({ orgId: org.id, userId: member.id, role: "developer" });
    const seen = await getOrgSecurity({ ctx: ownerCtx, orgId: org.id });
    expect(seen.require2fa).toBe(true);
    // The owner sees each member's second factor on the members list (the one list of members).
    const listed = await listMembers({ ctx: ownerCtx, orgId: org.id });
    expect(listed.map((m) => [m.email, m.twoFactorEnabled]).sort()).toEqual([[member.email, false], [owner.email, true]].sort());
    // A member sees the setting, not the others' second factors, and cannot change it.
    const memberCtx = await ctxOf(member.id, member.email);
    expect(await getOrgSecurity({ ctx: memberCtx, orgId: org.id })).toEqual({ orgId: org.id, require2fa: true, owner: false });
    expect((await listMembers({ ctx: memberCtx, orgId: org.id })).map((m) => m.twoFactorEnabled)).toEqual([null, null]);
    await expect(setOrgSecurity({ ctx: await ctxOf(member.id, member.email), orgId: org.id, input: { require2fa: false } })).rejects.toMatchObject({ code: "forbidden" });
    const bySession = await actorFor(db, member.id, member.email, { id: "s", twoFactorEnabled: false });
    expect(bySession.orgIds).toEqual([]);
    expect(bySession.secondFactorRequiredBy).toEqual([org.id]);
    expect((await actorFor(db, member.id, member.email)).orgIds).toEqual([org.id]);
    expect((await actorFor(db, member.id, member.email, { id: "s", twoFactorEnabled: true })).orgIds).toEqual([org.id]);
  });
});

describe("sessions", () => {
  it("a user lists their sessions (this one marked), ends one, then all others; an owner signs a member out everywhere", async () => {
    const op = await operator("sessions");
    const browsers = [new Browser("Firefox/1"), new Browser("Chrome/2"), new Browser("Safari/3")];
    for (const b of browsers) expect((await b.post("/sign-in/email", { email: op.email, password: op.password })).status).toBe(200);
    const mine = (await browsers[0]!.sessionOf())!.session.id;
    const listed = await listSessions(db, op.id, mine);
    expect(listed.map((s) => s.userAgent).sort()).toEqual(["Chrome/2", "Firefox/1", "Safari/3"]);
    expect(listed.filter((s) => s.current).map((s) => s.id)).toEqual([mine]);
    expect(JSON.stringify(listed)).not.toContain(browsers[0]!.header.split("=")[1]!.split(".")[0]!);
    const chrome = listed.find((s) => s.userAgent === "Chrome/2")!;
    await endSession(db, op.id, chrome.id);
    expect(await browsers[1]!.sessionOf()).toBeNull();
    const stranger = await operator("sessions-stranger");
    await expect(endSession(db, stranger.id, mine)).rejects.toMatchObject({ code: "not_found" });
    expect(await endOtherSessions(db, op.id, mine)).toBe(1);
    expect(await browsers[2]!.sessionOf()).toBeNull();
    expect((await browsers[0]!.sessionOf())?.session.id).toBe(mine);

    const owner = await operator("sessions-owner");
    const { org } = await bootstrapOrg(db, owner.id, `ses-${randomBytes(3).toString("hex")}`);
    await db.insert(membership).values({ orgId: org.id, userId: op.id, role: "developer" });
    await expect(signOutMember({ ctx: await ctxOf(op.id, op.email), orgId: org.id, userId: owner.id })).rejects.toMatchObject({ code: "forbidden" });
    expect(await signOutMember({ ctx: await ctxOf(owner.id, owner.email), orgId: org.id, userId: op.id })).toEqual({ userId: op.id, sessionsEnded: 1, sessionsKept: 0 });
    expect(await browsers[0]!.sessionOf()).toBeNull();
    expect(await db.select().from(session).where(eq(session.userId, op.id))).toEqual([]);
  });
});

describe("a member who also belongs to another organization", () => {
  /** Two organizations with their own owners, and a member of both. */
  async function twoOrgs(label: string) {
    const ownerA = await operator(`${label}-owner-a`);
    const ownerB = await operator(`${label}-owner-b`);
    const { org: a } = await bootstrapOrg(db, ownerA.id, `${label}-a-${randomBytes(3).toString("hex")}`);
    const { org: b } = await bootstrapOrg(db, ownerB.id, `${label}-b-${randomBytes(3).toString("hex")}`);
    return { ownerA, ownerB, a, b };
  }
  const audited = async (userId: string) => (await db.select({ action: auditEntry.action }).from(auditEntry).where(eq(auditEntry.targetId, userId))).map((e) => e.action);

  it("an owner of one organization may not reset their second factor (403 naming the installation administrator, nothing changed); an installation administrator who owns it may", async () => {
    const { ownerA, a, b } = await twoOrgs("reset-multi");
    const member = await enrolled("reset-multi-member");
    await db.insert(membership).values([
      { orgId: a.id, userId: member.id, role: "developer" },
      { orgId: b.id, userId: member.id, role: "developer" },
    ]);
    const refused = await resetMemberSecondFactor({ ctx: await ctxOf(ownerA.id, ownerA.email), orgId: a.id, userId: member.id }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "forbidden", field: "userId", message: expect.stringContaining("needs an installation administrator") });
    expect((await secondFactorOf(db, member.id)).enabled).toBe(true);
    expect(await db.select().from(twoFactor).where(eq(twoFactor.userId, member.id))).toHaveLength(1);
    expect(await audited(member.id)).toEqual([]);
    // The same owner, made an installation administrator on the host.
    await db.insert(installationAdmin).values({ userId: ownerA.id });
    expect(await resetMemberSecondFactor({ ctx: await ctxOf(ownerA.id, ownerA.email), orgId: a.id, userId: member.id })).toEqual({ userId: member.id, hadSecondFactor: true });
    expect((await secondFactorOf(db, member.id)).enabled).toBe(false);
    await db.delete(installationAdmin).where(eq(installationAdmin.userId, ownerA.id));
  });

  it("an owner's sign-out ends only the sessions that act in their organization alone (its single sign-on's) and counts the others, kept; an installation administrator ends them all", async () => {
    const { ownerA, ownerB, a, b } = await twoOrgs("signout-multi");
    const member = await operator("signout-multi-member");
    await db.insert(membership).values([
      { orgId: a.id, userId: member.id, role: "developer" },
      { orgId: b.id, userId: member.id, role: "developer" },
    ]);
    const browsers = [new Browser("password/1"), new Browser("sso-a/1"), new Browser("sso-b/1")];
    for (const br of browsers) expect((await br.post("/sign-in/email", { email: member.email, password: member.password })).status).toBe(200);
    // As the organizations' single sign-on marks the sessions it opens: one of A's, one of B's.
    await db.update(session).set({ ssoOrgId: a.id }).where(eq(session.id, (await browsers[1]!.sessionOf())!.session.id));
    await db.update(session).set({ ssoOrgId: b.id }).where(eq(session.id, (await browsers[2]!.sessionOf())!.session.id));

    expect(await signOutMember({ ctx: await ctxOf(ownerA.id, ownerA.email), orgId: a.id, userId: member.id })).toEqual({ userId: member.id, sessionsEnded: 1, sessionsKept: 2 });
    expect(await browsers[1]!.sessionOf()).toBeNull();
    expect((await browsers[0]!.sessionOf())?.user.email).toBe(member.email);
    expect((await browsers[2]!.sessionOf())?.user.email).toBe(member.email);
    // B's owner ends B's session only; the password session reaches A too and stays.
    expect(await signOutMember({ ctx: await ctxOf(ownerB.id, ownerB.email), orgId: b.id, userId: member.id })).toEqual({ userId: member.id, sessionsEnded: 1, sessionsKept: 1 });
    expect((await browsers[0]!.sessionOf())?.user.email).toBe(member.email);
    // An installation administrator who owns A signs them out everywhere.
    await db.insert(installationAdmin).values({ userId: ownerA.id });
    expect(await signOutMember({ ctx: await ctxOf(ownerA.id, ownerA.email), orgId: a.id, userId: member.id })).toEqual({ userId: member.id, sessionsEnded: 1, sessionsKept: 0 });
    expect(await db.select().from(session).where(eq(session.userId, member.id))).toEqual([]);
    await db.delete(installationAdmin).where(eq(installationAdmin.userId, ownerA.id));
  });

  it("a read-only token ends none of its user's own sessions", async () => {
    const op = await operator("ro-sessions");
    const { org } = await bootstrapOrg(db, op.id, `ro-${randomBytes(3).toString("hex")}`);
    const br = new Browser();
    expect((await br.post("/sign-in/email", { email: op.email, password: op.password })).status).toBe(200);
    const readOnly: Ctx = { db, actor: await actorFor(db, op.id, op.email, undefined, true), kit: testKit() };
    expect(readOnly.actor.orgIds).toEqual([org.id]);
    await expect(endOwnOtherSessions({ ctx: readOnly })).rejects.toMatchObject({ code: "forbidden", message: expect.stringContaining("a read-only API token changes nothing") });
    expect((await br.sessionOf())?.user.email).toBe(op.email);
  });
});
