import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createOperator } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";

// The API's route wrapper with a real session cookie (better-auth's own sign-in, a real PostgreSQL):
// an organization that requires a second factor the session lacks refuses it in that organization
// only, and the member's other organization keeps working.
vi.mock("server-only", () => ({}));
vi.mock("@/lib/actor", async () => await import("./actor"));
vi.mock("@/lib/api", async () => await import("./api"));
vi.mock("@/lib/audit-source", async () => await import("./audit-source"));
vi.mock("@/lib/request-body", async () => await import("./request-body"));
vi.mock("@/lib/server", async () => await import("./server"));
vi.mock("@/lib/nodes", async () => await import("./nodes"));

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let dataDir: string;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "org_requirements");
  ({ db, sql } = createDb(database.url));
  dataDir = mkdtempSync(join(tmpdir(), "lrreq-"));
  process.env.DATABASE_URL = database.url;
  process.env.LEVELRAIL_DATA_DIR = dataDir;
  process.env.LEVELRAIL_MASTER_KEY = randomBytes(32).toString("base64");
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("an organization requiring a second factor", () => {
  it("refuses a session without one in that organization only (403 saying to enrol); the member's other organization and the account answer", async () => {
    const { server } = await import("./server");
    const { auth, publicUrl } = server();
    const a = await seedOrg(db, "req-a");
    const b = await seedOrg(db, "req-b");
    await db.update(organization).set({ require2fa: true }).where(eq(organization.id, b.orgId));
    const email = `shared-${randomBytes(3).toString("hex")}@example.com`;
    const password = randomBytes(12).toString("base64url");
    const { id } = await createOperator(auth, email, password);
    await db.insert(membership).values([
      { orgId: a.orgId, userId: id, role: "developer" },
      { orgId: b.orgId, userId: id, role: "developer" },
    ]);
    const origin = new URL(publicUrl).origin;
    const signIn = await auth.handler(new Request(`${origin}/api/auth/sign-in/email`, { method: "POST", headers: { "content-type": "application/json", origin }, body: JSON.stringify({ email, password }) }));
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");

    const members = (await import("../app/api/v1/orgs/[id]/members/route")) as unknown as Record<string, (req: Request, r: { params: Promise<{ id: string }> }) => Promise<Response>>;
    const get = (orgId: string) => members.GET!(new Request(`${origin}/api/v1/orgs/${orgId}/members`, { headers: { cookie } }), { params: Promise.resolve({ id: orgId }) });
    const inA = await get(a.orgId);
    expect(inA.status, await inA.clone().text()).toBe(200);
    const inB = await get(b.orgId);
    expect(inB.status).toBe(403);
    expect(await inB.text()).toContain("requires a second factor: enrol one on your account page");
    const account = (await import("../app/api/v1/account/route")) as unknown as Record<string, (req: Request, r: { params: Promise<object> }) => Promise<Response>>;
    expect((await account.GET!(new Request(`${origin}/api/v1/account`, { headers: { cookie } }), { params: Promise.resolve({}) })).status).toBe(200);
  });
});
