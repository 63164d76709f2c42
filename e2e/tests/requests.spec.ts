// The walls around a request, over real HTTP against the running web server (server/main.mjs and
// `next start`'s handler): body cap, NUL bytes, token revocation and expiry, the Origin rule for
// cookie-authenticated writes, the sign-in rate limit against a rotated X-Forwarded-For, the
// organization cap, and the frame-ancestors header. Only loopback; no secret is printed.
import { randomBytes } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { createApiToken, listApiTokens } from "@levelrail/auth";
import { session } from "@levelrail/db/schema/auth";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { app } from "@levelrail/db/schema/services";
import { expect, test } from "../fixtures/test";
import { signInThroughApi } from "../fixtures/ui";

const SIX_MIB = "x".repeat(6 * 1024 * 1024);

/** An error body's code and field, for one readable comparison. */
const errorOf = async (res: { json(): Promise<unknown> }) => {
  const body = (await res.json()) as { error?: { code?: string; field?: string; message?: string } };
  return body.error ?? {};
};

test("a 6 MiB body is a 413 on an API write and on sign-in, and nothing is written", async ({ bearer, operator, stack, playwright }) => {
  const appsUrl = `/api/v1/environments/${operator.environmentId}/apps`;
  const res = await bearer.post(appsUrl, { data: { name: "too-big", pad: SIX_MIB } });
  expect(res.status()).toBe(413);
  expect(await errorOf(res)).toMatchObject({ code: "too_large", field: "body" });
  expect(await stack.db.select().from(app).where(eq(app.environmentId, operator.environmentId))).toEqual([]);
  // The same write without the padding goes through: the cap, not the route, refused it.
  expect((await bearer.post(appsUrl, { data: { name: "small-enough" } })).status()).toBe(201);

  // Sign-in with the right password but a 6 MiB body: refused before better-auth reads it, no session.
  const sessionsOf = async () => (await stack.db.select().from(session).where(eq(session.userId, operator.ctx.actor.userId))).length;
  const before = await sessionsOf();
  const anon = await playwright.request.newContext({ baseURL: stack.env.baseURL });
  try {
    const signIn = await anon.post("/api/auth/sign-in/email", {
      data: { email: operator.email, password: operator.password, pad: SIX_MIB },
      headers: { origin: stack.env.baseURL },
    });
    expect(signIn.status()).toBe(413);
    expect(await errorOf(signIn)).toMatchObject({ code: "too_large", field: "body" });
    expect(signIn.headers()["set-cookie"]).toBeUndefined();
  } finally {
    await anon.dispose();
  }
  expect(await sessionsOf()).toBe(before);
});

test("a NUL byte in a body field, a path segment or a query value is a 400 naming it, and nothing is written", async ({ bearer, operator, stack }) => {
  const orgsBefore = (await bearer.get("/api/v1/orgs").then((r) => r.json())) as unknown[];
  const org = await bearer.post("/api/v1/orgs", { data: { name: "a\u0000b" } });
  expect(org.status()).toBe(400);
  expect(await errorOf(org)).toMatchObject({ code: "invalid_input", field: "name" });
  expect(await bearer.get("/api/v1/orgs").then((r) => r.json())).toEqual(orgsBefore);

  const env = `/api/v1/environments/${operator.environmentId}`;
  const nested = await bearer.post(`${env}/services`, { data: { name: "web", app: "shop", image: "nginx:1", port: 80, env: { GREETING: "hi\u0000there" } } });
  expect(nested.status()).toBe(400);
  expect(await errorOf(nested)).toMatchObject({ code: "invalid_input", field: "env.GREETING" });

  const path = await bearer.get(`${env}/apps/a%00b`);
  expect(path.status()).toBe(400);
  expect(await errorOf(path)).toMatchObject({ code: "invalid_input", field: "app" });
  const deletion = await bearer.delete(`${env}/services/web%00x`);
  expect(deletion.status()).toBe(400);
  expect(await errorOf(deletion)).toMatchObject({ code: "invalid_input", field: "service" });

  const query = await bearer.get(`/api/v1/services?environmentId=${operator.environmentId}&app=a%00b`);
  expect(query.status()).toBe(400);
  expect(await errorOf(query)).toMatchObject({ code: "invalid_input", field: "app" });
  expect(await stack.db.select().from(app).where(eq(app.environmentId, operator.environmentId))).toEqual(
    expect.not.arrayContaining([expect.objectContaining({ name: expect.stringContaining("\u0000") })]),
  );
});

test("a revoked token and an expired token get 401; the token list never shows a token", async ({ bearer, operator, stack, playwright }) => {
  const as = (token: string) => playwright.request.newContext({ baseURL: stack.env.baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  const name = `revoke-me-${randomBytes(3).toString("hex")}`;
  const doomed = await createApiToken(stack.db, operator.email, name);
  const expiring = await createApiToken(stack.db, operator.email, `${name}-expiring`, 1);
  const a = await as(doomed);
  const b = await as(expiring);
  try {
    expect((await a.get("/api/v1/orgs")).status()).toBe(200);

    const listed = await bearer.get("/api/v1/tokens");
    expect(listed.status()).toBe(200);
    const text = await listed.text();
    expect(text).not.toContain(doomed);
    const mine = (JSON.parse(text) as { id: string; name: string; expired: boolean }[]).find((t) => t.name === name);
    expect(mine).toBeDefined();
    const revoked = await bearer.delete(`/api/v1/tokens/${mine!.id}`);
    expect(revoked.status()).toBe(204);
    expect(await listApiTokens(stack.db, operator.ctx.actor.userId)).toEqual(expect.not.arrayContaining([expect.objectContaining({ name })]));

    const afterRevoke = await a.get("/api/v1/orgs");
    expect(afterRevoke.status()).toBe(401);
    expect(await errorOf(afterRevoke)).toMatchObject({ code: "unauthenticated" });
    const writeAfterRevoke = await a.post("/api/v1/orgs", { data: { name: "nope" } });
    expect(writeAfterRevoke.status()).toBe(401);

    // 1 ms of validity has long passed.
    const expired = await b.get("/api/v1/orgs");
    expect(expired.status()).toBe(401);
    expect(await errorOf(expired)).toMatchObject({ code: "unauthenticated" });
    const row = (await listApiTokens(stack.db, operator.ctx.actor.userId)).find((t) => t.name === `${name}-expiring`);
    expect(row).toMatchObject({ expired: true, lastUsedAt: null });
  } finally {
    await a.dispose();
    await b.dispose();
  }
});

test("a cookie-authenticated write without the panel's Origin is refused (401); with it, it works", async ({ page, operator, stack }) => {
  await signInThroughApi(page, stack, operator);
  const request = page.context().request;
  const url = `/api/v1/environments/${operator.environmentId}/apps`;
  // Reads need no Origin (the session cookie is enough).
  expect((await request.get(url)).status()).toBe(200);

  // Playwright's request client sends the context's cookies and no Origin, like a script or a
  // cross-site form post from a browser that leaves Origin out.
  const bare = await request.post(url, { data: { name: "no-origin" } });
  expect(bare.status()).toBe(401);
  expect((await errorOf(bare)).message).toContain("Origin");
  const foreign = await request.post(url, { data: { name: "evil-origin" }, headers: { origin: "http://evil.example" } });
  expect(foreign.status()).toBe(401);
  // Another port of the same host is another origin.
  const port = await request.post(url, { data: { name: "other-port" }, headers: { origin: "http://127.0.0.1:1" } });
  expect(port.status()).toBe(401);
  const names = async () => (await stack.db.select({ name: app.name }).from(app).where(eq(app.environmentId, operator.environmentId))).map((r) => r.name);
  expect(await names()).toEqual(expect.not.arrayContaining(["no-origin", "evil-origin", "other-port"]));

  const own = await request.post(url, { data: { name: "with-origin" }, headers: { origin: stack.env.baseURL } });
  expect(own.status()).toBe(201);
  expect(await names()).toContain("with-origin");
});

test("responses forbid framing: Content-Security-Policy frame-ancestors 'none'", async ({ bearer, playwright, stack }) => {
  const anon = await playwright.request.newContext({ baseURL: stack.env.baseURL });
  try {
    for (const res of [await anon.get("/login"), await bearer.get("/api/v1/orgs"), await anon.get("/api/v1/orgs")]) {
      expect(res.headers()["content-security-policy"], res.url()).toContain("frame-ancestors 'none'");
      expect(res.headers()["x-frame-options"], res.url()).toBe("DENY");
    }
  } finally {
    await anon.dispose();
  }
});

test("creating organizations stops at the per-operator cap with a 409 naming the setting", async ({ bearer, operator, stack }) => {
  const made: string[] = [];
  try {
    // The operator owns one (their own); the default cap is 5.
    for (let i = 2; i <= 5; i++) {
      const res = await bearer.post("/api/v1/orgs", { data: { name: `extra-${i}` } });
      expect(res.status(), await res.text()).toBe(201);
      made.push(((await res.json()) as { id: string }).id);
    }
    const sixth = await bearer.post("/api/v1/orgs", { data: { name: "extra-6" } });
    expect(sixth.status()).toBe(409);
    expect((await errorOf(sixth)).message).toContain("LEVELRAIL_MAX_ORGS_PER_OPERATOR");
    const owned = await stack.db
      .select()
      .from(membership)
      .where(and(eq(membership.userId, operator.ctx.actor.userId), eq(membership.role, "owner")));
    expect(owned).toHaveLength(5);
  } finally {
    if (made.length) await stack.db.delete(organization).where(inArray(organization.id, made));
  }
});

// Last in the file: it uses up this client's sign-in allowance for the next 10 s.
test("rotating X-Forwarded-For (or the client-ip header itself) does not reset the sign-in rate limit", async ({ playwright, stack, operator }) => {
  const anon = await playwright.request.newContext({ baseURL: stack.env.baseURL });
  const attempt = (i: number) =>
    anon.post("/api/auth/sign-in/email", {
      data: { email: operator.email, password: `wrong-${i}` },
      headers: {
        origin: stack.env.baseURL,
        "x-forwarded-for": `203.0.113.${i}`,
        "x-real-ip": `198.51.100.${i}`,
        "x-levelrail-client-ip": `192.0.2.${i}`,
      },
    });
  try {
    // A fresh window: better-auth forgets a client's count 10 s after its last attempt (a spec
    // before this one may have signed in through the form).
    test.setTimeout(60_000);
    await new Promise((r) => setTimeout(r, 11_000));
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof attempt>> | null = null;
    for (let i = 1; i <= 5; i++) {
      const res = await attempt(i);
      statuses.push(res.status());
      if (res.status() === 429 && !limited) limited = res;
    }
    // better-auth allows 3 sign-in attempts per 10 s per client; every address above was made up,
    // so the web server kept the socket's own (127.0.0.1, no trusted proxy) and the 4th is refused.
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // What the limiter answers: 429, when to retry (seconds), and a message.
    expect(limited!.headers()["x-retry-after"]).toMatch(/^\d+$/);
    expect(await limited!.text()).toMatch(/too many requests/i);
  } finally {
    await anon.dispose();
  }
});
