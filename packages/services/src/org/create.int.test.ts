import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actorFor } from "@levelrail/auth";
import { user } from "@levelrail/db/schema/auth";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import type { Ctx } from "../context";
import { createOrg } from "./create";
import { listOrgs } from "./list";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "org_create");
  ({ db, sql } = createDb(database.url));
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "created",
    (err: { code?: string; message?: string }) => `${err.code}: ${err.message}`,
  );

/** An operator who belongs to no organization (a member of none, an owner of none). */
async function loneOperator(): Promise<Ctx> {
  const id = `test-lone-${randomBytes(4).toString("hex")}`;
  const email = `${id}@test.levelrail.local`;
  await db.insert(user).values({ id, name: "lone", email, emailVerified: true });
  return { db, actor: await actorFor(db, id, email), kit: testKit() };
}

const ownedBy = async (userId: string) => (await db.select().from(membership).where(eq(membership.userId, userId))).filter((m) => m.role === "owner").length;

describe("creating organizations is limited (LEVELRAIL_ORG_CREATION, LEVELRAIL_MAX_ORGS_PER_OPERATOR)", () => {
  it("by default an owner may create up to 5 in all, and the 6th is a 409 naming the setting; nothing is written", async () => {
    const a = await seedOrg(db, "cap");
    for (let i = 2; i <= 5; i++) expect((await createOrg({ ctx: a, input: { name: `cap-${i}` } })).name).toBe(`cap-${i}`);
    expect(await ownedBy(a.actor.userId)).toBe(5);
    const sixth = await refusal(createOrg({ ctx: a, input: { name: "cap-6" } }));
    expect(sixth).toMatch(/^conflict: /);
    expect(sixth).toContain("LEVELRAIL_MAX_ORGS_PER_OPERATOR=5");
    expect(await ownedBy(a.actor.userId)).toBe(5);
    expect((await db.select().from(organization).where(eq(organization.name, "cap-6"))).length).toBe(0);
    expect((await listOrgs({ ctx: a })).length).toBe(5);
  });

  it("parallel requests cannot pass the cap together", async () => {
    const a = await seedOrg(db, "race");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => refusal(createOrg({ ctx: a, input: { name: `race-${i}` } as unknown, policy: { who: "owners", maxPerOperator: 3 } }))),
    );
    expect(results.filter((r) => r === "created").length).toBe(2);
    expect(await ownedBy(a.actor.userId)).toBe(3);
  });

  it("`owners`: an operator who owns none (a member, or nobody's) may not create one; `anyone` lets them", async () => {
    const lone = await loneOperator();
    const denied = await refusal(createOrg({ ctx: lone, input: { name: "mine" } }));
    expect(denied).toMatch(/^conflict: /);
    expect(denied).toContain("LEVELRAIL_ORG_CREATION");
    expect(await ownedBy(lone.actor.userId)).toBe(0);
    // A member of someone else's organization is no owner either.
    const owner = await seedOrg(db, "host");
    await db.insert(membership).values({ orgId: owner.orgId, userId: lone.actor.userId, role: "developer" });
    expect(await refusal(createOrg({ ctx: lone, input: { name: "mine" } }))).toContain("LEVELRAIL_ORG_CREATION=owners");
    const made = await createOrg({ ctx: lone, input: { name: "mine" }, policy: { who: "anyone", maxPerOperator: 1 } });
    expect(lone.actor.orgIds).toContain(made.id);
    expect(await refusal(createOrg({ ctx: lone, input: { name: "second" }, policy: { who: "anyone", maxPerOperator: 1 } }))).toContain("LEVELRAIL_MAX_ORGS_PER_OPERATOR=1");
  });

  it("`none`: nobody creates one through the API, not even an owner under the cap", async () => {
    const a = await seedOrg(db, "none");
    const denied = await refusal(createOrg({ ctx: a, input: { name: "more" }, policy: { who: "none", maxPerOperator: 5 } }));
    expect(denied).toMatch(/^conflict: /);
    expect(denied).toContain("LEVELRAIL_ORG_CREATION=none");
    expect(await ownedBy(a.actor.userId)).toBe(1);
  });

  it("a bad name is still a 400 naming the field, before any limit", async () => {
    const lone = await loneOperator();
    await expect(createOrg({ ctx: lone, input: { name: "" } })).rejects.toMatchObject({ code: "invalid_input", field: "name" });
  });
});
