import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { stringify } from "yaml";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { app, service } from "@levelrail/db/schema/services";
import type { EnvironmentSpec } from "@levelrail/spec/env-spec";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { refusal } from "@levelrail/testkit/refusal";
import { seedMember, seedOrg } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { createDatabase } from "../database/write";
import { listSecrets, putSecret } from "../env/secrets";
import { getTierEnv, putTierEnv } from "../env/vars";
import { createService, patchService } from "../service/write";
import { applySpec } from "./apply";
import { exportSpec } from "./export";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "spec");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "speca");
  b = await seedOrg(db, "specb");
  await createApp({ ctx: a, envId: a.envId, input: { name: "shop" } });
  await createDatabase({ ctx: a, envId: a.envId, input: { name: "shop-db", version: "17" } });
  await putTierEnv({ ctx: a, tier: "environment", id: a.envId, input: { vars: { LOG_LEVEL: "info", REGION: "eu" } } });
  await createService({
    ctx: a,
    envId: a.envId,
    input: { name: "web", app: "shop", image: "registry.example.com/shop:1.4.2", port: 8080, healthPath: "/healthz", env: { MODE: "web" }, databaseEnv: { DATABASE_URL: { from: "shop-db" } }, domains: ["shop-a.localhost"], hooks: { preDeploy: ["npm", "run", "migrate"] } },
  });
  await createService({ ctx: a, envId: a.envId, input: { name: "worker", app: "shop", image: "registry.example.com/shop:1.4.2", port: 9000, strategy: "recreate", resources: { memoryMb: 256 } } });
  await putSecret({ ctx: a, envId: a.envId, name: "web", key: "API_KEY", input: { value: "s3cr3t-value-a" } });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const audits = async () => (await db.select({ n: count() }).from(auditEntry))[0]?.n ?? 0;
const copy = (d: EnvironmentSpec): EnvironmentSpec => structuredClone(d);

describe("export and apply", () => {
  it("exports what is declared, secrets by name only, with a resourceVersion", async () => {
    const doc = await exportSpec({ ctx: a, envId: a.envId });
    expect(doc.metadata).toMatchObject({ environment: "production" });
    expect(doc.metadata.resourceVersion).toMatch(/^[0-9a-f]{24}$/);
    expect(doc.spec.vars).toEqual({ LOG_LEVEL: "info", REGION: "eu" });
    const web = doc.spec.services.find((s) => s.name === "web")!;
    expect(web).toMatchObject({ app: "shop", port: 8080, healthPath: "/healthz", secrets: ["API_KEY"], databaseEnv: { DATABASE_URL: { from: "shop-db" } } });
    expect(doc.spec.databases).toEqual([{ name: "shop-db", engine: "postgres", version: "17", image: "postgres:17", backupSchedule: null }]);
    expect(JSON.stringify(doc)).not.toContain("s3cr3t");
  });

  it("the resourceVersion changes with any change, a secret's new value included", async () => {
    const env = await seedEnv("version");
    const version = async () => (await exportSpec({ ctx: a, envId: env })).metadata.resourceVersion;
    const seen = new Set([await version()]);
    await putSecret({ ctx: a, envId: env, name: "web", key: "API_KEY", input: { value: "rotated-value" } });
    seen.add(await version());
    await putTierEnv({ ctx: a, tier: "environment", id: env, input: { vars: { LOG_LEVEL: "debug" } } });
    seen.add(await version());
    await patchService({ ctx: a, envId: env, name: "web", input: { domains: [] } });
    seen.add(await version());
    await createApp({ ctx: a, envId: env, input: { name: "empty" } });
    seen.add(await version());
    expect(seen.size).toBe(5);
  });

  it("export then apply to the same environment changes nothing (and writes nothing)", async () => {
    const doc = await exportSpec({ ctx: a, envId: a.envId });
    const before = await audits();
    const r = await applySpec({ ctx: a, envId: a.envId, input: { spec: stringify(doc) } });
    expect(r.plan.changes).toEqual([]);
    expect(r.plan.missingSecrets).toEqual([]);
    expect(r.resourceVersion).toBe(doc.metadata.resourceVersion);
    expect(await audits()).toBe(before);
    expect((await exportSpec({ ctx: a, envId: a.envId })).metadata.resourceVersion).toBe(doc.metadata.resourceVersion);
  });

  it("the exported document itself is taken as the body, as JSON or as YAML text, with no envelope", async () => {
    const doc = await exportSpec({ ctx: a, envId: a.envId });
    const before = await audits();
    for (const input of [doc, stringify(doc)]) {
      const r = await applySpec({ ctx: a, envId: a.envId, input });
      expect(r.applied).toBe(true);
      expect(r.plan.changes).toEqual([]);
    }
    expect(await audits()).toBe(before);
    // The envelope keeps its strictness: a stray field beside `spec` is still a 400 naming it.
    await expect(applySpec({ ctx: a, envId: a.envId, input: { spec: doc, extra: 1 } })).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("round trip: applied to a new environment of another project, a diff then shows nothing", async () => {
    const doc = await exportSpec({ ctx: a, envId: a.envId });
    const target = copy(doc);
    target.metadata = { project: "elsewhere", environment: "staging" };
    for (const s of target.spec.services) s.domains = s.domains.map((d) => d.replace("shop-a", "shop-b"));
    const text = stringify(target);
    const dry = await applySpec({ ctx: b, envId: b.envId, input: { spec: text }, opts: { dryRun: true } });
    expect(dry.plan.missingSecrets).toEqual([{ service: "web", key: "API_KEY" }]);
    expect(dry.plan.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(
      expect.arrayContaining(["create var LOG_LEVEL", "create app shop", "create database shop-db", "create service web", "create service worker"]),
    );
    const r = await applySpec({ ctx: b, envId: b.envId, input: { spec: text, secrets: { API_KEY: "s3cr3t-value-b" } } });
    expect(r.applied).toBe(true);
    expect(JSON.stringify(r)).not.toContain("s3cr3t");
    const again = await applySpec({ ctx: b, envId: b.envId, input: { spec: text }, opts: { dryRun: true } });
    expect(again.plan).toEqual({ changes: [], left: [], missingSecrets: [], drift: [] });
    expect((await listSecrets({ ctx: b, envId: b.envId, name: "web" })).map((s) => s.key)).toEqual(["API_KEY"]);
    // Idempotent: applying it again writes nothing.
    const before = await audits();
    await applySpec({ ctx: b, envId: b.envId, input: { spec: text } });
    expect(await audits()).toBe(before);
  });

  it("without --prune deletes nothing and says what it left; with it, deletes what the file leaves out", async () => {
    const env = await seedEnv("prune");
    const doc = await exportSpec({ ctx: a, envId: env });
    const less = copy(doc);
    less.spec.services = less.spec.services.filter((s) => s.name !== "worker");
    delete less.spec.vars.REGION;
    delete less.metadata.resourceVersion;
    const kept = await applySpec({ ctx: a, envId: env, input: { spec: less } });
    expect(kept.plan.changes).toEqual([]);
    expect(kept.plan.left.map((c) => `${c.kind} ${c.name}`).sort()).toEqual(["service worker", "var REGION"]);
    expect(await db.select().from(service).where(eq(service.environmentId, env))).toHaveLength(2);
    const pruned = await applySpec({ ctx: a, envId: env, input: { spec: less }, opts: { prune: true } });
    expect(pruned.plan.changes.map((c) => `${c.action} ${c.kind} ${c.name}`).sort()).toEqual(["delete service worker", "delete var REGION"]);
    expect((await db.select().from(service).where(eq(service.environmentId, env))).map((s) => s.name)).toEqual(["web"]);
    expect((await getTierEnv({ ctx: a, tier: "environment", id: env })).vars).toEqual({ LOG_LEVEL: "info" });
  });

  it("a change after the export makes apply refuse (409 naming resourceVersion) unless forced", async () => {
    const env = await seedEnv("stale");
    const doc = await exportSpec({ ctx: a, envId: env });
    await patchService({ ctx: a, envId: env, name: "worker", input: { port: 9100 } });
    const changed = copy(doc);
    changed.spec.services.find((s) => s.name === "web")!.image = "registry.example.com/shop:1.5.0";
    const before = await audits();
    const err = await refusal(() => applySpec({ ctx: a, envId: env, input: { spec: stringify(changed) } }));
    expect(err).toMatchObject({ code: "conflict", field: "metadata.resourceVersion" });
    expect(err.message).toContain(doc.metadata.resourceVersion!);
    expect(await audits()).toBe(before);
    const forced = await applySpec({ ctx: a, envId: env, input: { spec: stringify(changed) }, opts: { force: true } });
    expect(forced.plan.changes.map((c) => `${c.action} ${c.name} ${c.fields.map((f) => f.field).join(",")}`).sort()).toEqual(["change web image", "change worker port"]);
  });

  it("is all or nothing: an object the verbs refuse leaves nothing written", async () => {
    const env = await seedEnv("atomic");
    const doc = await exportSpec({ ctx: a, envId: env });
    const bad = copy(doc);
    bad.spec.vars.NEW_VAR = "x";
    bad.spec.apps.push({ name: "blog" });
    // The domain is routed to the first environment's web already: the service verb refuses it.
    bad.spec.services.push({ ...bad.spec.services[0]!, name: "blog-web", app: "blog", domains: ["shop-a.localhost"], databaseEnv: {}, secrets: [] });
    const text = stringify(bad);
    const before = { audits: await audits(), apps: await db.select().from(app).where(eq(app.environmentId, env)) };
    const err = await refusal(() => applySpec({ ctx: a, envId: env, input: { spec: text } }));
    expect(err.code).toBe("conflict");
    expect(err.field).toBe("spec.services.2.domains");
    expect(err.message).toMatch(/^line \d+, column \d+: spec\.services\.2\.domains: shop-a\.localhost is already routed/);
    expect(await audits()).toBe(before.audits);
    expect(await db.select().from(app).where(eq(app.environmentId, env))).toEqual(before.apps);
    expect((await getTierEnv({ ctx: a, tier: "environment", id: env })).vars).not.toHaveProperty("NEW_VAR");
  });

  it("--deploy deploys what it created or changed, and only that", async () => {
    const env = await seedEnv("deploy");
    const doc = await exportSpec({ ctx: a, envId: env });
    doc.spec.services.find((s) => s.name === "worker")!.image = "registry.example.com/shop:1.6.0";
    const r = await applySpec({ ctx: a, envId: env, input: { spec: doc }, opts: { deploy: true } });
    expect(r.deployed).toEqual(["worker"]);
    const rows = await db.select({ name: service.name, releaseId: service.currentReleaseId }).from(service).where(eq(service.environmentId, env));
    expect(Object.fromEntries(rows.map((x) => [x.name, x.releaseId !== null]))).toEqual({ web: false, worker: true });
  });

  it("names an unknown backup target or registry credential at its line, and writes nothing", async () => {
    const doc = await exportSpec({ ctx: a, envId: a.envId });
    const bad = copy(doc);
    bad.spec.services[0]!.registryCredential = "nope";
    const err = await refusal(() => applySpec({ ctx: a, envId: a.envId, input: { spec: stringify(bad) }, opts: { force: true } }));
    expect(err).toMatchObject({ code: "invalid_input", field: "spec.services.0.registryCredential" });
    expect(err.message).toMatch(/^line \d+, column \d+: spec\.services\.0\.registryCredential: no registry credential named nope/);
  });

  it("a viewer may diff but not apply", async () => {
    const viewer = await seedMember(db, a, "viewer", "viewer");
    const doc = await exportSpec({ ctx: viewer, envId: a.envId });
    await applySpec({ ctx: viewer, envId: a.envId, input: { spec: doc }, opts: { dryRun: true } });
    expect(await refusal(() => applySpec({ ctx: viewer, envId: a.envId, input: { spec: doc } }))).toMatchObject({ code: "forbidden" });
    expect(await refusal(() => exportSpec({ ctx: b, envId: a.envId }))).toMatchObject({ code: "not_found" });
  });
});

/** A new environment of org A's project holding a copy of the first one (through apply). */
async function seedEnv(label: string): Promise<string> {
  const { createEnvironment } = await import("../project/environment");
  const env = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: label } });
  const doc = await exportSpec({ ctx: a, envId: a.envId });
  delete doc.metadata.resourceVersion;
  for (const s of doc.spec.services) s.domains = s.domains.map((d) => d.replace("shop-a", `shop-${label}`));
  await applySpec({ ctx: a, envId: env.id, input: { spec: doc, secrets: { API_KEY: "another-value" } } });
  return env.id;
}
