// The node controller's store on the real PostgreSQL: it reads what `PATCH /api/v1/nodes/{id}` wrote,
// and records a result only against the request it answers (a newer request stays pending).
import { afterAll, beforeAll, expect, it } from "vitest";
import { actorFor } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { installationAdmin } from "@levelrail/db/schema/operator";
import { changeNode } from "@levelrail/services/node/change";
import { listNodes } from "@levelrail/services/node/list";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { pgNodeChangeStore } from "./node-store";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let owner: Awaited<ReturnType<typeof seedOrg>>;
const reader = { nodes: async () => ({ engine: "swarm" as const, nodes: [{ id: "n1", name: "n1" }] }) };
const stateOf = async () => (await listNodes({ ctx: owner, reader })).nodes[0]?.change;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "nodestore");
  ({ db, sql } = createDb(database.url, { max: 4 }));
  owner = await seedOrg(db, "nodestore");
  // Only an installation administrator changes a node.
  await db.insert(installationAdmin).values({ userId: owner.actor.userId });
  owner.actor = await actorFor(db, owner.actor.userId, owner.actor.email);
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

it("reads the requests, records results against their own generation only", async () => {
  const store = pgNodeChangeStore(db);
  await changeNode({ ctx: owner, reader, nodeId: "n1", input: { availability: "drain", labels: { zone: "a" } } });
  expect(await store.changes()).toEqual([{ nodeId: "n1", availability: "drain", labels: { zone: "a" }, generation: 1, appliedGeneration: 0, error: null }]);

  await store.failed("n1", 1, "the engine refused the change: update out of sequence");
  expect(await stateOf()).toMatchObject({ state: "failed", error: "the engine refused the change: update out of sequence" });

  // A newer request clears the error; the answer to the older one no longer lands.
  await changeNode({ ctx: owner, reader, nodeId: "n1", input: { availability: "active" } });
  await store.applied("n1", 1);
  expect(await stateOf()).toMatchObject({ state: "pending", error: null, availability: "active", labels: { zone: "a" } });
  await store.applied("n1", 2);
  expect(await stateOf()).toMatchObject({ state: "applied", error: null });
});
