// The database controller's store on the real PostgreSQL, for a database pinned to a node: it reads
// the placement the API wrote, records the node chosen for it once (a second choice never moves
// it), and answers the placement to the deploy's attacher.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { createDatabase } from "@levelrail/services/database/write";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { swarmEngine } from "@levelrail/testkit/engine";
import { seedOrg } from "@levelrail/testkit/seed";
import { pgDatabaseStore } from "./database-store";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let owner: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "dbstore");
  ({ db, sql } = createDb(database.url, { max: 4 }));
  owner = await seedOrg(db, "dbstore");
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

it("reads a database's placement, and records its node once", async () => {
  const made = await createDatabase({ ctx: { ...owner, engine: swarmEngine() }, envId: owner.envId, input: { name: "orders", placement: { disk: "ssd" } } });
  const store = pgDatabaseStore(db, owner.kit.keyring);
  expect(await store.database(made.id)).toMatchObject({ placement: { disk: "ssd" }, nodeId: null });
  await store.pinNode(made.id, "node-a");
  await store.pinNode(made.id, "node-b");
  expect(await store.database(made.id)).toMatchObject({ nodeId: "node-a" });
});
