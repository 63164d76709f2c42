// The doctor's database probe against the real PostgreSQL: which managed databases are pinned to a
// swarm node (what the swarm check names when that node is drained or down).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { postgresProbe } from "./probes";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "doctor_probe");
  ({ db, sql } = createDb(database.url, { max: 2 }));
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("the doctor's database probe", () => {
  it("lists the databases pinned to a node as project/environment/database with the node's id, and no other", async () => {
    const org = await seedOrg(db, "doctor-pinned");
    const base = { orgId: org.orgId, environmentId: org.envId, engine: "postgres" as const, version: "17", image: "postgres:17", username: "postgres", passwordSealed: "x" };
    const pinnedId = crypto.randomUUID();
    const plainId = crypto.randomUUID();
    await db.insert(managedDatabase).values([
      { ...base, id: pinnedId, name: "orders", volume: `v-${pinnedId}`, placement: { disk: "ssd" }, nodeId: "wrk1" },
      { ...base, id: plainId, name: "cache", volume: `v-${plainId}` },
    ]);
    const [where] = await sql<{ path: string }[]>`select p.name || '/' || e.name as path from environment e join project p on p.id = e.project_id where e.id = ${org.envId}`;
    const probe = postgresProbe(database.url, { shortName: "lrdocp", lockName: "levelrail.worker.lrdocp" });
    try {
      expect(await probe.pinned()).toEqual([{ database: `${where!.path}/orders`, nodeId: "wrk1" }]);
    } finally {
      await probe.close();
    }
  });
});
