// A service's replicas and placement (issue 26: docs/operating/services-and-deploys.md#replicas-and-placement) against the real PostgreSQL: their
// defaults, the 400s naming the field, the 409 on one engine (the host's real engine, asked as the
// web app asks it) with nothing written, and, where the engine answers "swarm", their way through
// the view, a deploy's release spec, drift, a clone and config as code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { release, service } from "@levelrail/db/schema/services";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { hostEngine, swarmEngine } from "@levelrail/testkit/engine";
import { refusal } from "@levelrail/testkit/refusal";
import { seedOrg, uniq } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { getDatabase } from "../database/view";
import { createDatabase, deleteDatabase, removeVolume } from "../database/write";
import type { Ctx } from "../context";
import { configDrift } from "../env/effective";
import { ONE_ENGINE } from "../node/engine";
import { createEnvironment } from "../project/environment";
import { deployService } from "../release/deploy";
import { applySpec } from "../spec/apply";
import { exportSpec } from "../spec/export";
import { getService, listServices } from "./view";
import { createService, patchService } from "./write";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;
let engine: ReturnType<typeof hostEngine>;
let oneEngine: Ctx;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "swarmfields");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "swarmfields");
  engine = hostEngine();
  oneEngine = { ...a, engine };
  // The premise: the test host's engine is one engine, not a swarm manager.
  expect((await engine.nodes()).engine).toBe("single");
  engine.calls = 0;
  await createApp({ ctx: a, envId: a.envId, input: { name: "shop" } });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const swarm = () => {
  const e = swarmEngine();
  return { ctx: { ...a, engine: e } as Ctx, engine: e };
};
const base = (extra: Record<string, unknown> = {}) => ({ name: `web-${uniq()}`, app: "shop", image: "registry.example.com/shop:1.0", port: 8080, ...extra });
const rowOf = async (name: string) => (await db.select().from(service).where(and(eq(service.name, name), eq(service.environmentId, a.envId))))[0];
const audits = async () => (await db.select({ n: count() }).from(auditEntry).where(eq(auditEntry.orgId, a.orgId)))[0]?.n ?? 0;
const releaseSpecOf = async (id: string) => (await db.select().from(release).where(eq(release.id, id)))[0]!.spec;

describe("defaults", () => {
  it("a service made without them has one replica and no placement, and the engine is never asked", async () => {
    const input = base();
    const view = await createService({ ctx: oneEngine, envId: a.envId, input });
    expect(view).toMatchObject({ replicas: 1, placement: {} });
    expect(await rowOf(input.name)).toMatchObject({ replicas: 1, placement: {} });
    expect(await getService({ ctx: a, envId: a.envId, name: input.name })).toMatchObject({ replicas: 1, placement: {} });
    // Saying the defaults out loud costs no engine call either.
    await patchService({ ctx: oneEngine, envId: a.envId, name: input.name, input: { replicas: 1, placement: {} } });
    expect(engine.calls).toBe(0);
  });

  it("a deploy of the defaults leaves them out of the release spec (older releases' fingerprints stay equal)", async () => {
    const input = base();
    await createService({ ctx: a, envId: a.envId, input });
    const r = await deployService({ ctx: a, envId: a.envId, name: input.name, input: {} });
    const spec = await releaseSpecOf(r.id);
    expect(spec).not.toHaveProperty("replicas");
    expect(spec).not.toHaveProperty("placement");
    expect((await configDrift({ ctx: a, envId: a.envId, name: input.name })).changedFields).toEqual([]);
  });
});

describe("bad values: 400 naming the field, before the engine is asked, nothing written", () => {
  const BAD: [string, Record<string, unknown>, string][] = [
    ["no replicas", { replicas: 0 }, "replicas"],
    ["101 replicas", { replicas: 101 }, "replicas"],
    ["a fraction of a replica", { replicas: 2.5 }, "replicas"],
    ["replicas as a string", { replicas: "3" }, "replicas"],
    ["a product's own label", { placement: { "levelrail.mtu": "1500" } }, "placement.levelrail.mtu"],
    ["a label key with a space", { placement: { "a b": "x" } }, "placement.a b"],
    ["a label value with '=='", { placement: { zone: "a==b" } }, "placement.zone"],
    ["eleven labels", { placement: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "v"])) }, "placement"],
    ["a placement that is a list", { placement: ["zone=a"] }, "placement"],
  ];

  it.each(BAD)("create with %s", async (_what, extra, field) => {
    const input = base(extra);
    const before = await audits();
    expect(await refusal(() => createService({ ctx: oneEngine, envId: a.envId, input }))).toMatchObject({ code: "invalid_input", field });
    expect(await rowOf(input.name)).toBeUndefined();
    expect(await audits()).toBe(before);
    expect(engine.calls).toBe(0);
  });

  it.each(BAD)("patch with %s", async (_what, extra, field) => {
    const input = base();
    await createService({ ctx: a, envId: a.envId, input });
    const before = await rowOf(input.name);
    const err = await refusal(() => patchService({ ctx: oneEngine, envId: a.envId, name: input.name, input: extra }));
    expect(err).toMatchObject({ code: "invalid_input", field });
    expect(err.message.startsWith(`${field}: `)).toBe(true);
    expect(await rowOf(input.name)).toEqual(before);
    expect(engine.calls).toBe(0);
  });
});

describe("one engine: 409 naming the field, nothing written", () => {
  it("a patch of replicas 3", async () => {
    const input = base();
    await createService({ ctx: a, envId: a.envId, input });
    const before = { row: await rowOf(input.name), audits: await audits() };
    const err = await refusal(() => patchService({ ctx: oneEngine, envId: a.envId, name: input.name, input: { replicas: 3, port: 9090 } }));
    expect(err).toMatchObject({ code: "conflict", field: "replicas", message: ONE_ENGINE.replicas });
    expect(err.message).toBe("replicas: more than 1 needs a Docker Swarm; this installation runs on one engine (see Nodes)");
    expect(await rowOf(input.name)).toEqual(before.row);
    expect(await audits()).toBe(before.audits);
    expect(engine.calls).toBe(1);
  });

  it("a create with a placement", async () => {
    const input = base({ placement: { zone: "a" } });
    const before = await audits();
    expect(await refusal(() => createService({ ctx: oneEngine, envId: a.envId, input }))).toMatchObject({ code: "conflict", field: "placement", message: ONE_ENGINE.placement });
    expect(await rowOf(input.name)).toBeUndefined();
    expect(await audits()).toBe(before);
  });

  it("a patch of anything else leaves a service's stored replicas alone (only what a patch asks is checked)", async () => {
    const { ctx } = swarm();
    const input = base({ replicas: 2 });
    await createService({ ctx, envId: a.envId, input });
    engine.calls = 0;
    expect(await patchService({ ctx: oneEngine, envId: a.envId, name: input.name, input: { port: 9091 } })).toMatchObject({ port: 9091, replicas: 2 });
    expect(engine.calls).toBe(0);
  });

  it("a panel wired without an engine reader fails loudly rather than guess", async () => {
    const input = base({ replicas: 2 });
    expect(await refusal(() => createService({ ctx: a, envId: a.envId, input }))).toMatchObject({ code: "internal" });
    expect(await rowOf(input.name)).toBeUndefined();
  });

  it("an engine that does not answer: 503, nothing written", async () => {
    const input = base({ replicas: 2 });
    const down: Ctx = { ...a, engine: { nodes: () => Promise.reject(new Error("connect ENOENT /var/run/docker.sock")) } };
    expect(await refusal(() => createService({ ctx: down, envId: a.envId, input }))).toMatchObject({ code: "unavailable", field: undefined });
    expect(await rowOf(input.name)).toBeUndefined();
  });
});

describe("on a swarm", () => {
  it("replicas and placement round-trip through create, patch, the view and the list; placement is replaced whole", async () => {
    const { ctx, engine: e } = swarm();
    const input = base({ replicas: 3, placement: { zone: "eu-1a", disk: "ssd" } });
    expect(await createService({ ctx, envId: a.envId, input })).toMatchObject({ replicas: 3, placement: { zone: "eu-1a", disk: "ssd" } });
    expect(e.calls).toBe(1);
    expect(await getService({ ctx: a, envId: a.envId, name: input.name })).toMatchObject({ replicas: 3, placement: { zone: "eu-1a", disk: "ssd" } });
    const listed = (await listServices({ ctx: a, envId: a.envId })).find((s) => s.name === input.name);
    expect(listed).toMatchObject({ replicas: 3, placement: { zone: "eu-1a", disk: "ssd" } });
    expect(await patchService({ ctx, envId: a.envId, name: input.name, input: { placement: { zone: "eu-1b" } } })).toMatchObject({ replicas: 3, placement: { zone: "eu-1b" } });
    expect(await patchService({ ctx, envId: a.envId, name: input.name, input: { replicas: 1, placement: {} } })).toMatchObject({ replicas: 1, placement: {} });
    expect(await rowOf(input.name)).toMatchObject({ replicas: 1, placement: {} });
  });

  it("a deploy snapshots them into the release; drift names each change since", async () => {
    const { ctx } = swarm();
    const input = base({ replicas: 4, placement: { zone: "a" } });
    await createService({ ctx, envId: a.envId, input });
    const r1 = await deployService({ ctx: a, envId: a.envId, name: input.name, input: {} });
    expect(await releaseSpecOf(r1.id)).toMatchObject({ replicas: 4, placement: { zone: "a" } });
    await patchService({ ctx, envId: a.envId, name: input.name, input: { replicas: 1 } });
    expect((await configDrift({ ctx: a, envId: a.envId, name: input.name })).changedFields).toEqual(["replicas"]);
    const r2 = await deployService({ ctx: a, envId: a.envId, name: input.name, input: {} });
    const spec = await releaseSpecOf(r2.id);
    expect(spec).not.toHaveProperty("replicas");
    expect(spec.placement).toEqual({ zone: "a" });
    expect(r2.id).not.toBe(r1.id);
  });

  it("a clone of the environment carries them", async () => {
    const { ctx } = swarm();
    const input = base({ replicas: 2, placement: { zone: "b" } });
    await createService({ ctx, envId: a.envId, input });
    const copy = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `clone-${uniq()}`, from: a.envId } });
    expect(await getService({ ctx: a, envId: copy.id, name: input.name })).toMatchObject({ replicas: 2, placement: { zone: "b" } });
  });
});

describe("config as code", () => {
  it("export says them; apply changes them on a swarm and refuses them on one engine (409 at the file's field), writing nothing", async () => {
    const env = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `spec-${uniq()}` } });
    await createApp({ ctx: a, envId: env.id, input: { name: "shop" } });
    await createService({ ctx: a, envId: env.id, input: { name: "web", app: "shop", image: "registry.example.com/shop:1.0", port: 8080 } });
    const doc = await exportSpec({ ctx: a, envId: env.id });
    expect(doc.spec.services[0]).toMatchObject({ name: "web", replicas: 1, placement: {} });

    const scaled = structuredClone(doc);
    scaled.spec.services[0]!.replicas = 2;
    scaled.spec.services.push({ ...structuredClone(doc.spec.services[0]!), name: "api", replicas: 1, placement: { zone: "a" } });
    const before = await audits();
    const err = await refusal(() => applySpec({ ctx: oneEngine, envId: env.id, input: { spec: scaled } }));
    expect(err).toMatchObject({ code: "conflict", field: "spec.services.0.replicas" });
    expect(err.message).toContain("needs a Docker Swarm");
    expect(await audits()).toBe(before);
    expect((await getService({ ctx: a, envId: env.id, name: "web" })).replicas).toBe(1);

    const { ctx } = swarm();
    const r = await applySpec({ ctx, envId: env.id, input: { spec: scaled } });
    expect(r.plan.changes.map((c) => `${c.action} ${c.name} ${c.fields.map((f) => f.field).join(",")}`).sort()).toEqual(["change web replicas", "create api "]);
    expect(await getService({ ctx: a, envId: env.id, name: "api" })).toMatchObject({ replicas: 1, placement: { zone: "a" } });
    const again = await exportSpec({ ctx: a, envId: env.id });
    expect(again.spec.services.find((s) => s.name === "web")).toMatchObject({ replicas: 2, placement: {} });
    // Export then apply changes nothing.
    expect((await applySpec({ ctx, envId: env.id, input: { spec: again } })).plan.changes).toEqual([]);
  });

  it("a file written before the fields existed applies as one replica anywhere, with no change", async () => {
    const env = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `old-${uniq()}` } });
    await createApp({ ctx: a, envId: env.id, input: { name: "shop" } });
    await createService({ ctx: a, envId: env.id, input: { name: "web", app: "shop", image: "registry.example.com/shop:1.0", port: 8080 } });
    const doc = await exportSpec({ ctx: a, envId: env.id });
    const old = structuredClone(doc) as unknown as { metadata: { resourceVersion?: string }; spec: { services: Record<string, unknown>[] } };
    delete old.metadata.resourceVersion;
    for (const s of old.spec.services) {
      delete s.replicas;
      delete s.placement;
    }
    expect((await applySpec({ ctx: oneEngine, envId: env.id, input: { spec: old } })).plan.changes).toEqual([]);
  });
});

describe("a database's placement", () => {
  it("is refused on one engine (409 naming placement) and by a bad label (400), writing nothing; on a swarm it is kept, shown and carried by a clone", async () => {
    const name = `pg-${uniq()}`;
    const before = await audits();
    expect(await refusal(() => createDatabase({ ctx: oneEngine, envId: a.envId, input: { name, placement: { disk: "ssd" } } }))).toMatchObject({ code: "conflict", field: "placement", message: ONE_ENGINE.placement });
    expect(await refusal(() => createDatabase({ ctx: swarm().ctx, envId: a.envId, input: { name, placement: { "levelrail.mtu": "1500" } } }))).toMatchObject({ code: "invalid_input", field: "placement.levelrail.mtu" });
    expect(await db.select().from(managedDatabase).where(eq(managedDatabase.name, name))).toEqual([]);
    expect(await audits()).toBe(before);

    expect(await createDatabase({ ctx: swarm().ctx, envId: a.envId, input: { name, placement: { disk: "ssd" } } })).toMatchObject({ name, placement: { disk: "ssd" } });
    expect(await getDatabase({ ctx: a, envId: a.envId, name })).toMatchObject({ placement: { disk: "ssd" } });
    const copy = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `clone-${uniq()}`, from: a.envId } });
    expect(await getDatabase({ ctx: a, envId: copy.id, name })).toMatchObject({ placement: { disk: "ssd" } });
    // Without one, the database stays on the manager's engine (and one engine is never asked).
    const plain = `pg-${uniq()}`;
    engine.calls = 0;
    expect(await createDatabase({ ctx: oneEngine, envId: a.envId, input: { name: plain } })).toMatchObject({ placement: {} });
    expect(engine.calls).toBe(0);
  });

  it("a pinned database's volumes are on its node: removing one, or its data with it, is refused (409 naming the field), nothing written", async () => {
    const name = `pg-${uniq()}`;
    await createDatabase({ ctx: swarm().ctx, envId: a.envId, input: { name, placement: { disk: "ssd" } } });
    const before = await audits();
    const vol = await refusal(() => removeVolume({ ctx: a, envId: a.envId, name, volume: "some-volume", input: { confirm: "some-volume" } }));
    expect(vol).toMatchObject({ code: "conflict", field: "volume" });
    expect(vol.message).toContain("docker volume rm some-volume on that node");
    const drop = await refusal(() => deleteDatabase({ ctx: a, envId: a.envId, name, dropData: true }));
    expect(drop).toMatchObject({ code: "conflict", field: "dropData" });
    expect(await getDatabase({ ctx: a, envId: a.envId, name })).toMatchObject({ name });
    expect(await audits()).toBe(before);
  });
});

describe("a database's placement as code", () => {
  it("export says it only when set; apply makes it on a swarm, refuses it on one engine (409 at the file's field) and refuses a change of it (fixed once made)", async () => {
    const env = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `dbspec-${uniq()}` } });
    await createDatabase({ ctx: a, envId: env.id, input: { name: "plain" } });
    const doc = await exportSpec({ ctx: a, envId: env.id });
    expect(doc.spec.databases[0]).not.toHaveProperty("placement");

    const placed = structuredClone(doc);
    placed.spec.databases.push({ ...structuredClone(doc.spec.databases[0]!), name: "pinned", placement: { disk: "ssd" } });
    const before = await audits();
    const err = await refusal(() => applySpec({ ctx: oneEngine, envId: env.id, input: { spec: placed } }));
    expect(err).toMatchObject({ code: "conflict", field: "spec.databases.1.placement" });
    expect(await audits()).toBe(before);

    const { ctx } = swarm();
    await applySpec({ ctx, envId: env.id, input: { spec: placed } });
    expect(await getDatabase({ ctx: a, envId: env.id, name: "pinned" })).toMatchObject({ placement: { disk: "ssd" } });
    const again = await exportSpec({ ctx: a, envId: env.id });
    expect(again.spec.databases.find((d) => d.name === "pinned")).toMatchObject({ placement: { disk: "ssd" } });
    expect((await applySpec({ ctx, envId: env.id, input: { spec: again } })).plan.changes).toEqual([]);

    const moved = structuredClone(again);
    moved.spec.databases.find((d) => d.name === "pinned")!.placement = { disk: "hdd" };
    const refused = await refusal(() => applySpec({ ctx, envId: env.id, input: { spec: moved } }));
    expect(refused.message).toContain("placement of a database does not change in place");
  });
});
