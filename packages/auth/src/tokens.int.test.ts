import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes, randomUUID } from "node:crypto";
import { type Sql, createDb } from "@levelrail/db/client";
import { organization, membership } from "@levelrail/db/schema/orgs";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { actorForToken, createApiToken, createAuth, createOperator, listApiTokens, parseLifetime, revokeApiToken } from "./index";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let sql: Sql;
let db: ReturnType<typeof createDb>["db"];
let alice: { id: string; email: string };
let bob: { id: string; email: string };

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "tokens");
  ({ db, sql } = createDb(database.url));
  const auth = createAuth({ db, masterKey: randomBytes(32), baseURL: "http://localhost:3000", trustedOrigins: [] });
  alice = await createOperator(auth, `alice-${randomBytes(3).toString("hex")}@test.levelrail.local`, "correct horse battery");
  bob = await createOperator(auth, `bob-${randomBytes(3).toString("hex")}@test.levelrail.local`, "correct horse battery");
  // A token works only while its creator is a member of an organization.
  const [org] = await db.insert(organization).values({ name: "tokens" }).returning();
  await db.insert(membership).values([alice, bob].map((u) => ({ orgId: org!.id, userId: u.id, role: "owner" as const })));
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("API tokens", () => {
  it("a token works until revoked; the list shows name, last use and expiry, never the token", async () => {
    const token = await createApiToken(db, alice.email, "ci");
    expect((await actorForToken(db, token))?.userId).toBe(alice.id);
    const [listed] = await listApiTokens(db, alice.id);
    expect(listed).toMatchObject({ name: "ci", expiresAt: null, expired: false, lastUsedAt: expect.any(String) });
    expect(JSON.stringify(listed)).not.toContain(token.slice(3));
    await revokeApiToken(db, alice.id, listed!.id);
    expect(await actorForToken(db, token)).toBeNull();
  });

  it("an expired token answers as unknown, and is listed as expired", async () => {
    const token = await createApiToken(db, alice.email, "short", 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(await actorForToken(db, token)).toBeNull();
    expect((await listApiTokens(db, alice.id)).find((t) => t.name === "short")).toMatchObject({ expired: true });
    const later = await createApiToken(db, alice.email, "later", parseLifetime("90d"));
    expect((await actorForToken(db, later))?.userId).toBe(alice.id);
  });

  it("another operator's token cannot be revoked through the API: the same 404 as one that does not exist", async () => {
    const token = await createApiToken(db, alice.email, "mine");
    const id = (await listApiTokens(db, alice.id)).find((t) => t.name === "mine")!.id;
    const theirs = await revokeApiToken(db, bob.id, id).catch((e: unknown) => e);
    const none = await revokeApiToken(db, bob.id, randomUUID()).catch((e: unknown) => e);
    expect(theirs).toMatchObject({ code: "not_found", message: "token not found" });
    expect(none).toMatchObject({ code: "not_found", message: "token not found" });
    expect((await actorForToken(db, token))?.userId).toBe(alice.id);
  });

  it("lifetimes are 90d, 12h or 30m; anything else names the field", () => {
    expect(parseLifetime("90d")).toBe(90 * 86_400_000);
    expect(parseLifetime("12h")).toBe(12 * 3_600_000);
    for (const bad of ["90", "0d", "1y", "-1d", "99999d"]) expect(() => parseLifetime(bad), bad).toThrow(expect.objectContaining({ field: "expiresIn" }));
  });
});
