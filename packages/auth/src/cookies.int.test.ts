import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { type Sql, createDb } from "@levelrail/db/client";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { createAuth, createOperator } from "./index";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let sql: Sql;
let db: ReturnType<typeof createDb>["db"];

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "cookies");
  ({ db, sql } = createDb(database.url));
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

/** Signs in through better-auth's own handler, as the browser does, and answers the Set-Cookie of the session. */
async function signIn(baseURL: string): Promise<{ setCookie: string; auth: ReturnType<typeof createAuth> }> {
  const auth = createAuth({ db, masterKey: randomBytes(32), baseURL, trustedOrigins: [baseURL] });
  const email = `c-${randomBytes(3).toString("hex")}@test.levelrail.local`;
  const password = randomBytes(12).toString("base64url");
  await createOperator(auth, email, password);
  const res = await auth.handler(
    new Request(`${baseURL}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: baseURL },
      body: JSON.stringify({ email, password }),
    }),
  );
  expect(res.status).toBe(200);
  const setCookie = res.headers.getSetCookie().find((c) => c.includes("session_token=")) ?? "";
  return { setCookie, auth };
}

describe("the session cookie", () => {
  it("over HTTPS is __Host- prefixed, Secure, HttpOnly, Path=/ and has no Domain; the session it names is valid", async () => {
    const { setCookie, auth } = await signIn("https://panel.example.com");
    expect(setCookie).toMatch(/^__Host-levelrail\.session_token=/);
    expect(setCookie).toMatch(/;\s*Secure/i);
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
    expect(setCookie).toMatch(/;\s*Path=\/(;|$)/i);
    expect(setCookie).not.toMatch(/;\s*Domain=/i);
    const cookie = setCookie.split(";")[0]!;
    const session = await auth.api.getSession({ headers: new Headers({ cookie }) });
    expect(session?.user.email).toMatch(/@test\.levelrail\.local$/);
  });

  it("over plain HTTP (localhost) keeps a cookie the browser will store without TLS", async () => {
    const { setCookie } = await signIn("http://localhost:3000");
    expect(setCookie).toMatch(/^better-auth\.session_token=/);
    expect(setCookie).not.toMatch(/;\s*Secure/i);
  });
});
