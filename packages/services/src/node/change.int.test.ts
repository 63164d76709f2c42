// Node changes (`PATCH /api/v1/nodes/{id}`) against the real PostgreSQL: who may ask (an installation
// administrator only, never an organization role), what is refused (400 naming the field, 404, 409 on
// one engine) with nothing written, and what a request records: the merged change, its generation,
// the installation's audit entry (and one in each organization with a database on the node) and the
// worker's wake-up.
import { and, eq, isNull } from "drizzle-orm";
import { actorFor } from "@levelrail/auth";
import { installationAdmin } from "@levelrail/db/schema/operator";
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
let admin: Ctx, developer: Ctx, projectAdmin: Ctx, viewer: Ctx;
/** An admin of the organization who is also an installation administrator. */
let installer: Ctx;

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
/** The installation's own node.update entries (no organization). */
const entries = () => db.select().from(auditEntry).where(and(isNull(auditEntry.orgId), eq(auditEntry.action, "node.update")));

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "nodes");
  ({ db, sql } = createDb(database.url, { max: 4 }));
  owner = await seedOrg(db, "nodes-owner");
  admin = await seedMember(db, owner, "admin", "admin");
  developer = await seedMember(db, owner, "developer", "developer");
  projectAdmin = await seedMember(db, owner, "padmin", "admin", owner.projectId);
  viewer = await seedMember(db, owner, "viewer", "viewer");
  const granted = await seedMember(db, owner, "installer", "admin");
  await db.insert(installationAdmin).values({ userId: granted.userId });
  installer = { ...granted, actor: await actorFor(db, granted.userId, granted.email) };
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
    expect(await refusal(changeNode({ ctx: installer, reader: swarm, nodeId: "wrk1", input }))).toMatchObject({ code: "invalid_input", field });
    expect(await rows()).toEqual([]);
  });

  it("an empty body: 400 saying what to give", async () => {
    expect(await refusal(changeNode({ ctx: installer, reader: swarm, nodeId: "wrk1", input: {} }))).toMatchObject({ code: "invalid_input", message: expect.stringContaining("give availability, labels or both") });
  });

  it("any organization role, even its owner's, that is not an installation administrator: 403 naming who may", async () => {
    expect(installer.actor.installationAdmin).toBe(true);
    for (const ctx of [owner, admin, developer, projectAdmin, viewer]) {
      expect(ctx.actor.installationAdmin).toBe(false);
      for (const input of [{ availability: "drain" }, { labels: { zone: "x" } }]) {
        expect(await refusal(changeNode({ ctx, reader: swarm, nodeId: "wrk1", input }))).toMatchObject({ code: "forbidden", message: expect.stringContaining("needs an installation administrator") });
      }
    }
    expect(await rows()).toEqual([]);
    expect(await db.select().from(auditEntry).where(eq(auditEntry.action, "node.update"))).toEqual([]);
  });

  it("an installation administrator's read-only token is no installation administrator", async () => {
    const readOnly = { ...installer, actor: await actorFor(db, installer.actor.userId, installer.actor.email, undefined, true) };
    expect(await refusal(changeNode({ ctx: readOnly, reader: swarm, nodeId: "wrk1", input: { availability: "drain" } }))).toMatchObject({ code: "forbidden" });
    expect(await rows()).toEqual([]);
  });

  it("every member of a whole organization, viewer and up, reads the nodes; a role on one project only does not", async () => {
    for (const ctx of [viewer, developer, admin, owner]) expect((await listNodes({ ctx, reader: swarm })).nodes.map((n) => n.name)).toEqual(["mgr1", "wrk1"]);
    expect(await refusal(listNodes({ ctx: projectAdmin, reader: swarm }))).toMatchObject({ code: "forbidden", message: expect.stringContaining("needs the viewer role") });
  });

  it("one engine: 409 saying a swarm is needed; an unknown node: 404", async () => {
    expect(await refusal(changeNode({ ctx: installer, reader: single, nodeId: "engine", input: { availability: "drain" } }))).toMatchObject({ code: "conflict", message: SINGLE_ENGINE });
    expect(await refusal(changeNode({ ctx: installer, reader: swarm, nodeId: "nope", input: { availability: "drain" } }))).toMatchObject({ code: "not_found" });
    expect(await rows()).toEqual([]);
    expect(await entries()).toEqual([]);
  });
});

describe("changeNode records", () => {
  it("a drain, pending, with one audit entry and a wake-up of the worker's node controller", async () => {
    const woken: string[] = [];
    const sub = await sql.listen(DESIRED_CHANNEL, (p) => woken.push(p));
    try {
      const { node } = await changeNode({ ctx: installer, reader: swarm, nodeId: "wrk1", input: { availability: "drain" } });
      expect(node).toMatchObject({ id: "wrk1", change: { availability: "drain", labels: null, state: "pending", error: null, requestedBy: installer.actor.email } });
      await expect.poll(() => woken).toContain("nodes");
    } finally {
      await sub.unlisten();
    }
    expect(await entries()).toMatchObject([
      { targetType: "node", targetId: "wrk1", targetName: "wrk1", fields: ["availability"], actorName: `${installer.actor.email} (installation administrator)` },
    ]);
    // No organization has anything on it yet: no organization's log has the entry.
    expect(await db.select().from(auditEntry).where(eq(auditEntry.action, "node.update"))).toHaveLength(1);
  });

  it("a later request keeps what the earlier asked unless it asks otherwise, and grows the generation", async () => {
    await changeNode({ ctx: installer, reader: swarm, nodeId: "wrk1", input: { labels: { zone: "b", disk: "ssd" } } });
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
    const err = await refusal(changeNode({ ctx: installer, reader: swarm, nodeId: "wrk1", input: { availability: "drain" } }));
    expect(err).toMatchObject({ code: "conflict", field: "stopDatabases", message: expect.stringContaining("stops the databases pinned to it (orders and databases of other organizations)") });
    expect(err?.message).not.toContain("secret-db");
    expect(await rows()).toEqual([before]);
    expect(await entries()).toHaveLength(audited);
  });

  it("goes through with stopDatabases: true, audited as an availability change; labels and other nodes are never held up", async () => {
    const { node } = await changeNode({ ctx: installer, reader: swarm, nodeId: "wrk1", input: { availability: "drain", stopDatabases: true } });
    expect(node.change).toMatchObject({ availability: "drain", state: "pending" });
    expect((await entries()).at(-1)).toMatchObject({ targetId: "wrk1", fields: ["availability"] });
    // Each organization with a database on the node finds the drain in its own log, by whom.
    const [other] = await db.selectDistinct({ orgId: managedDatabase.orgId }).from(managedDatabase).where(and(eq(managedDatabase.nodeId, "wrk1"), eq(managedDatabase.name, "secret-db")));
    for (const orgId of [owner.orgId, other!.orgId]) {
      const theirs = await db.select().from(auditEntry).where(and(eq(auditEntry.orgId, orgId), eq(auditEntry.action, "node.update")));
      expect(theirs, orgId).toMatchObject([{ targetId: "wrk1", fields: ["availability"], actorName: `${installer.actor.email} (installation administrator)` }]);
    }
    await changeNode({ ctx: installer, reader: swarm, nodeId: "wrk1", input: { labels: { zone: "a" } } });
    await changeNode({ ctx: installer, reader: swarm, nodeId: "mgr1", input: { availability: "drain" } });
  });

  it("stopDatabases must be a boolean", async () => {
    expect(await refusal(changeNode({ ctx: installer, reader: swarm, nodeId: "wrk1", input: { availability: "drain", stopDatabases: "yes" } }))).toMatchObject({ code: "invalid_input", field: "stopDatabases" });
  });
});
