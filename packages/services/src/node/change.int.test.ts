// Node changes (CONTRACT §12, `PATCH /api/v1/nodes/{id}`) against the real PostgreSQL: who may ask,
// what is refused (400 naming the field, 404, 409 on one engine) with nothing written, and what a
// request records: the merged change, its generation, one audit entry and the worker's wake-up.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { DESIRED_CHANNEL } from "@levelrail/db/notify";
import { auditEntry } from "@levelrail/db/schema/audit";
import { nodeChange } from "@levelrail/db/schema/nodes";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedMember, seedOrg } from "@levelrail/testkit/seed";
import type { Ctx } from "../context";
import { SINGLE_ENGINE, changeNode } from "./change";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { listNodes } from "./list";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let owner: Awaited<ReturnType<typeof seedOrg>>;
let admin: Ctx, developer: Ctx, projectAdmin: Ctx;

const nodes = [
  { id: "mgr1", name: "mgr1", availability: "active", labels: {} },
  { id: "wrk1", name: "wrk1", availability: "active", labels: { zone: "a" } },
];
const swarm = { nodes: async () => ({ engine: "swarm" as const, nodes }) };
const single = { nodes: async () => ({ engine: "single" as const, nodes: [{ id: "engine", name: "engine", availability: "active", labels: {} }] }) };

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: { code?: string; message?: string; field?: string }) => err,
  );
const rows = () => db.select().from(nodeChange);
const entries = () => db.select().from(auditEntry).where(and(eq(auditEntry.orgId, owner.orgId), eq(auditEntry.action, "node.update")));

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "nodes");
  ({ db, sql } = createDb(database.url, { max: 4 }));
  owner = await seedOrg(db, "nodes-owner");
  admin = await seedMember(db, owner, "admin", "admin");
  developer = await seedMember(db, owner, "developer", "developer");
  projectAdmin = await seedMember(db, owner, "padmin", "admin", owner.projectId);
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("changeNode refuses, writing nothing", () => {
  it.each([
    [{ availability: "sleep" }, "availability"],
    [{ labels: { "levelrail.db": "x" } }, "labels.levelrail.db"],
    [{ labels: { "a b": "x" } }, "labels.a b"],
    [{ labels: { zone: "a==b" } }, "labels.zone"],
    [{ labels: { zone: " a" } }, "labels.zone"],
    [{ extra: true }, "extra"],
  ])("%j: 400 naming %s", async (input, field) => {
    expect(await refusal(changeNode({ ctx: admin, reader: swarm, nodeId: "wrk1", input }))).toMatchObject({ code: "invalid_input", field });
    expect(await rows()).toEqual([]);
  });

  it("an empty body: 400 saying what to give", async () => {
    expect(await refusal(changeNode({ ctx: admin, reader: swarm, nodeId: "wrk1", input: {} }))).toMatchObject({ code: "invalid_input", message: expect.stringContaining("give availability, labels or both") });
  });

  it("a developer, or an admin of one project only: 403 naming the admin role", async () => {
    for (const ctx of [developer, projectAdmin]) {
      expect(await refusal(changeNode({ ctx, reader: swarm, nodeId: "wrk1", input: { availability: "drain" } }))).toMatchObject({ code: "forbidden", message: expect.stringContaining("needs the admin role") });
    }
    expect(await rows()).toEqual([]);
  });

  it("one engine: 409 saying a swarm is needed; an unknown node: 404", async () => {
    expect(await refusal(changeNode({ ctx: admin, reader: single, nodeId: "engine", input: { availability: "drain" } }))).toMatchObject({ code: "conflict", message: SINGLE_ENGINE });
    expect(await refusal(changeNode({ ctx: admin, reader: swarm, nodeId: "nope", input: { availability: "drain" } }))).toMatchObject({ code: "not_found" });
    expect(await rows()).toEqual([]);
    expect(await entries()).toEqual([]);
  });
});

describe("changeNode records", () => {
  it("a drain, pending, with one audit entry and a wake-up of the worker's node controller", async () => {
    const woken: string[] = [];
    const sub = await sql.listen(DESIRED_CHANNEL, (p) => woken.push(p));
    try {
      const { node } = await changeNode({ ctx: admin, reader: swarm, nodeId: "wrk1", input: { availability: "drain" } });
      expect(node).toMatchObject({ id: "wrk1", change: { availability: "drain", labels: null, state: "pending", error: null, requestedBy: admin.actor.email } });
      await expect.poll(() => woken).toContain("nodes");
    } finally {
      await sub.unlisten();
    }
    expect(await entries()).toMatchObject([{ targetType: "node", targetId: "wrk1", targetName: "wrk1", fields: ["availability"] }]);
  });

  it("a later request keeps what the earlier asked unless it asks otherwise, and grows the generation", async () => {
    await changeNode({ ctx: owner, reader: swarm, nodeId: "wrk1", input: { labels: { zone: "b", disk: "ssd" } } });
    const [row] = await rows();
    expect(row).toMatchObject({ nodeId: "wrk1", availability: "drain", labels: { zone: "b", disk: "ssd" }, generation: 2, appliedGeneration: 0 });
  });

  it("the list shows each node's change beside what the engine says; a node never asked shows none", async () => {
    const view = await listNodes({ ctx: admin, reader: swarm });
    expect(view.nodes.find((n) => n.id === "mgr1")?.change).toBeNull();
    expect(view.nodes.find((n) => n.id === "wrk1")?.change).toMatchObject({ availability: "drain", labels: { zone: "b", disk: "ssd" }, state: "pending" });
  });

  it("the list names the caller's databases pinned to each node, never another organization's", async () => {
    const other = await seedOrg(db, "nodes-other");
    const ours = crypto.randomUUID();
    const base = { engine: "postgres" as const, version: "17", image: "postgres:17", username: "postgres", passwordSealed: "x", placement: { zone: "a" }, nodeId: "wrk1" };
    await db.insert(managedDatabase).values([
      { ...base, id: ours, orgId: owner.orgId, environmentId: owner.envId, name: "orders", volume: `v-${ours}` },
      { ...base, id: crypto.randomUUID(), orgId: other.orgId, environmentId: other.envId, name: "secret-db", volume: `v-other-${ours}` },
    ]);
    const view = await listNodes({ ctx: admin, reader: swarm });
    expect(view.nodes.find((n) => n.id === "wrk1")?.databases).toEqual([{ name: "orders", environmentId: owner.envId }]);
    expect(view.nodes.find((n) => n.id === "mgr1")?.databases).toEqual([]);
    expect(JSON.stringify(view)).not.toContain("secret-db");
  });
});

describe("a drain of a node that databases are pinned to", () => {
  // Runs after the list test above, which pinned "orders" (ours) and "secret-db" (another organization's) to wrk1.
  it("is refused with 409 naming stopDatabases, our database by name, another organization's only as existing; nothing written", async () => {
    const [before] = await rows();
    const audited = (await entries()).length;
    const err = await refusal(changeNode({ ctx: admin, reader: swarm, nodeId: "wrk1", input: { availability: "drain" } }));
    expect(err).toMatchObject({ code: "conflict", field: "stopDatabases", message: expect.stringContaining("stops the databases pinned to it (orders and databases of other organizations)") });
    expect(err?.message).not.toContain("secret-db");
    expect(await rows()).toEqual([before]);
    expect(await entries()).toHaveLength(audited);
  });

  it("goes through with stopDatabases: true, audited as an availability change; labels and other nodes are never held up", async () => {
    const { node } = await changeNode({ ctx: admin, reader: swarm, nodeId: "wrk1", input: { availability: "drain", stopDatabases: true } });
    expect(node.change).toMatchObject({ availability: "drain", state: "pending" });
    expect((await entries()).at(-1)).toMatchObject({ targetId: "wrk1", fields: ["availability"] });
    await changeNode({ ctx: admin, reader: swarm, nodeId: "wrk1", input: { labels: { zone: "a" } } });
    await changeNode({ ctx: admin, reader: swarm, nodeId: "mgr1", input: { availability: "drain" } });
  });

  it("stopDatabases must be a boolean", async () => {
    expect(await refusal(changeNode({ ctx: admin, reader: swarm, nodeId: "wrk1", input: { availability: "drain", stopDatabases: "yes" } }))).toMatchObject({ code: "invalid_input", field: "stopDatabases" });
  });
});
