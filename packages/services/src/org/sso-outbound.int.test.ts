import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuth } from "@levelrail/auth";
import { ssoProviderId } from "@levelrail/auth/sso";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { user } from "@levelrail/db/schema/auth";
import { domainProof } from "@levelrail/db/schema/domains";
import { ssoEmailDomain } from "@levelrail/db/schema/sso";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { CookieJar, type TestIdp, loginAtProvider, startOidcProvider } from "@levelrail/testkit/oidc";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import type { Lookup, TargetPolicy } from "../notifications/address";
import { setSso, ssoBackend } from "./sso";

// What the panel connects to for an organization's single sign-on goes through the installation's
// address policy, every request of it (discovery, token exchange, key set, userinfo), each resolved
// once and pinned: a real OpenID provider on loopback whose issuer is the name `idp.sso.test`, which
// only the policy's resolver (the tests' seam) answers, with 127.0.0.1 (the provider's pages, walked
// by the test as a browser, are reached through the same answer).

const PANEL = "http://127.0.0.1:3601";
const HOST = "idp.sso.test";
const kit = testKit();
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let idp: TestIdp;
let org: Awaited<ReturnType<typeof seedOrg>>;

/** The policy's resolver: answers HOST with 127.0.0.1 while `answers` lasts (Infinity: always), then ENOTFOUND; records every question. */
function resolver() {
  const r = {
    asked: [] as string[],
    answers: Number.POSITIVE_INFINITY,
    lookup: (async (host: string) => {
      r.asked.push(host);
      if (host !== HOST || r.answers <= 0) throw Object.assign(new Error(`${host}: not found`), { code: "ENOTFOUND" });
      r.answers--;
      return [{ address: "127.0.0.1", family: 4 }];
    }) as Lookup,
  };
  return r;
}

const authWith = (policy: TargetPolicy) => createAuth({ db, masterKey: randomBytes(32), baseURL: PANEL, trustedOrigins: [PANEL], sso: ssoBackend(db, kit.keyring, policy) });
type TestAuth = ReturnType<typeof authWith>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "sso_outbound");
  ({ db, sql } = createDb(database.url));
  org = await seedOrg(db, "ssoout", kit);
  idp = await startOidcProvider([`${PANEL}/api/auth/callback/${ssoProviderId(org.orgId)}`], { host: HOST });
  const r = resolver();
  await setSso({ ctx: { ...org, allowPrivateTargets: true, targetLookup: r.lookup }, orgId: org.orgId, input: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, domain: "out.example" } });
  await db.insert(ssoEmailDomain).values({ orgId: org.orgId, domain: "out.example" });
  await db.insert(domainProof).values({ orgId: org.orgId, domain: "out.example", status: "verified" });
}, 120_000);

afterAll(async () => {
  await idp?.close();
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

/** "Sign in with SSO" through the panel: its answer, and the browser's cookies. */
async function start(auth: TestAuth) {
  const jar = new CookieJar();
  const res = await auth.handler(
    new Request(`${PANEL}/api/auth/sign-in/social`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: PANEL },
      body: JSON.stringify({ provider: ssoProviderId(org.orgId), callbackURL: "/", errorCallbackURL: "/login" }),
    }),
  );
  jar.take(res);
  return { jar, status: res.status, body: (await res.json()) as { url?: string; message?: string } };
}

/** The provider's login pages, walked as a browser whose own resolver answers HOST with 127.0.0.1. */
const login = (authorizationUrl: string, email: string) =>
  loginAtProvider(authorizationUrl.replace(`//${HOST}:`, "//127.0.0.1:"), email).then((u) => u.replace(`//127.0.0.1:`, `//${HOST}:`));

async function finish(auth: TestAuth, jar: CookieJar, callbackUrl: string) {
  const res = await auth.handler(new Request(callbackUrl, { headers: { cookie: jar.header() } }));
  jar.take(res);
  return { location: res.headers.get("location") ?? "", session: await auth.api.getSession({ headers: new Headers({ cookie: jar.header() }) }) };
}

describe("single sign-on's outbound requests and the address policy", () => {
  it("every request to the identity provider is resolved by the policy when it is made: discovery, token, key set and userinfo", async () => {
    const r = resolver();
    const auth = authWith({ allowPrivate: true, lookup: r.lookup });
    const email = `all-${randomBytes(3).toString("hex")}@out.example`;
    const { jar, status, body } = await start(auth);
    expect(status).toBe(200);
    const callback = await login(body.url!, email);
    r.asked.length = 0;
    const seen = idp.requests.length;
    const { session } = await finish(auth, jar, callback);
    expect(session?.user.email).toBe(email);
    const hits = idp.requests.slice(seen);
    // Each request the panel made to the provider during the callback was preceded by the policy's own answer for its host.
    expect(hits.length).toBeGreaterThanOrEqual(4);
    expect(r.asked.filter((h) => h === HOST).length).toBe(hits.length);
  });

  it("a name that stops resolving to an allowed address between the sign-in's checks gets no request: the token endpoint is not called, nobody is signed in", async () => {
    const r = resolver();
    const auth = authWith({ allowPrivate: true, lookup: r.lookup });
    const email = `rebind-${randomBytes(3).toString("hex")}@out.example`;
    const { jar, body } = await start(auth);
    const callback = await login(body.url!, email);
    // The callback's first look-up of the issuer's name is answered, every later one not (as a name
    // whose answer changes after it was checked): nothing may connect on an answer it did not check.
    r.answers = 1;
    const seen = idp.requests.length;
    const { location, session } = await finish(auth, jar, callback);
    expect(location).toMatch(/error=/);
    expect(session).toBeNull();
    expect(idp.requests.slice(seen).filter((q) => q.startsWith("POST /token"))).toEqual([]);
    expect(await db.select().from(user).where(eq(user.email, email))).toEqual([]);
  });

  it("with private targets not allowed, an issuer whose name resolves to loopback gets no request at all, and the sign-in says why", async () => {
    const r = resolver();
    const auth = authWith({ allowPrivate: false, lookup: r.lookup });
    const seen = idp.requests.length;
    const { status, body } = await start(auth);
    expect(status).toBe(502);
    expect(body.message).toContain(`${HOST} resolves to 127.0.0.1, a loopback address; refused`);
    expect(body.message).not.toContain(idp.clientSecret);
    expect(idp.requests.length).toBe(seen);
  });

  it("a discovery document that names another issuer is refused", async () => {
    const r = resolver();
    const other = await seedOrg(db, "ssoout-other", kit);
    const mismatched = await startOidcProvider([`${PANEL}/api/auth/callback/${ssoProviderId(other.orgId)}`], { host: HOST });
    try {
      // The connection names the provider by its address; the provider says its issuer is the name.
      await setSso({ ctx: { ...other, allowPrivateTargets: true }, orgId: other.orgId, input: { issuer: mismatched.issuer.replace(HOST, "127.0.0.1"), clientId: mismatched.clientId, clientSecret: mismatched.clientSecret, domain: "other-out.example" } });
      const auth = authWith({ allowPrivate: true, lookup: r.lookup });
      const res = await auth.handler(
        new Request(`${PANEL}/api/auth/sign-in/social`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: PANEL },
          body: JSON.stringify({ provider: ssoProviderId(other.orgId), callbackURL: "/", errorCallbackURL: "/login" }),
        }),
      );
      expect(res.status).toBe(502);
      expect(((await res.json()) as { message: string }).message).toContain("names another issuer");
    } finally {
      await mismatched.close();
    }
  });
});
