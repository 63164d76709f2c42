// Managed databases through the verbs (issue 13) against the real PostgreSQL: what is refused (400
// naming the field, 409, 404 for another organization's) writes nothing, passwords never leave, and
// attachments resolve only inside the service's own environment.
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { backup, databaseTeardown, managedDatabase } from "@levelrail/db/schema/databases";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { refusalBody } from "@levelrail/testkit/refusal";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import { backupTarget } from "@levelrail/db/schema/config";
import { createBackupTarget, deleteBackupTarget, listBackupTargets } from "../config/backup-targets";
import { effectiveEnv } from "../env/effective";
import { setOrgQuotas } from "../org/quota";
import { createEnvironment } from "../project/environment";
import { createApp } from "../app/app";
import { createService, patchService } from "../service/write";
import { requestBackup, requestVerify, restoreBackup } from "./backups";
import { getDatabase, listBackups, listDatabases } from "./view";
import { createDatabase, deleteDatabase, patchDatabase, removeVolume } from "./write";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "databases");
  ({ db, sql } = createDb(database.url, { max: 8 }));
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

type Org = Awaited<ReturnType<typeof seedOrg>>;
const kit = testKit();
const dbsOf = async (o: Org) => (await db.select({ n: count() }).from(managedDatabase).where(eq(managedDatabase.orgId, o.orgId)))[0]!.n;
// A loopback endpoint: an installation that allows private targets (LEVELRAIL_ALLOW_PRIVATE_TARGETS=true).
const target = (o: Org, name = "s3") =>
  createBackupTarget({ ctx: { ...o, allowPrivateTargets: true }, input: { name, endpoint: "http://127.0.0.1:9", bucket: "b", region: "us-east-1", accessKey: "AK", secretKey: "super-secret-key" } });

describe("creating a database", () => {
  let o: Org;
  let other: Org;
  beforeAll(async () => {
    o = { ...(await seedOrg(db, "dbs", kit)), shortName: "lrx" };
    other = await seedOrg(db, "dbs-other", kit);
  });

  it("answers the database without its password, pending, on volume <short>-db-<id>, with the official image by default", async () => {
    const d = await createDatabase({ ctx: o, envId: o.envId, input: { name: "shop-db", engine: "postgres", version: "17" } });
    expect(d).toMatchObject({ name: "shop-db", engine: "postgres", version: "17", image: "postgres:17", phase: "pending", backupSchedule: null });
    expect(d.volume).toBe(`lrx-db-${d.id}`);
    expect(d.connection).toEqual({ host: "shop-db", port: 5432, user: "postgres", database: "shop-db" });
    expect(JSON.stringify(d)).not.toMatch(/password/i);
    const [row] = await db.select().from(managedDatabase).where(eq(managedDatabase.id, d.id));
    // Sealed at rest, opened by the keyring.
    expect(row!.passwordSealed).not.toContain(kit.keyring.open(row!.passwordSealed));
    expect(kit.keyring.open(row!.passwordSealed)).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await listDatabases({ ctx: o, envId: o.envId })).map((x) => x.name)).toEqual(["shop-db"]);
  });

  it.each([
    ["a name that is no DNS label", { name: "Shop_DB" }, "name"],
    ["an engine other than postgres", { name: "x1", engine: "mysql" }, "engine"],
    ["a version below the range", { name: "x2", version: "11" }, "version"],
    ["a version above the range", { name: "x3", version: "20" }, "version"],
    ["a version that is no major version", { name: "x4", version: "17.2; drop" }, "version"],
    ["an image reference with a space", { name: "x5", image: "postgres 17" }, "image"],
    ["a cron expression with 6 fields", { name: "x6", backupSchedule: { cron: "* * * * * *", targetId: "00000000-0000-4000-8000-000000000001", keep: 3 } }, "backupSchedule.cron"],
    ["a cron expression out of range", { name: "x7", backupSchedule: { cron: "61 * * * *", targetId: "00000000-0000-4000-8000-000000000001", keep: 3 } }, "backupSchedule.cron"],
    ["a keep count of 0", { name: "x8", backupSchedule: { cron: "0 3 * * *", targetId: "00000000-0000-4000-8000-000000000001", keep: 0 } }, "backupSchedule.keep"],
    ["a keep count of 101", { name: "x9", backupSchedule: { cron: "0 3 * * *", targetId: "00000000-0000-4000-8000-000000000001", keep: 101 } }, "backupSchedule.keep"],
    ["an unknown backup target", { name: "x10", backupSchedule: { cron: "0 3 * * *", targetId: "00000000-0000-4000-8000-000000000001", keep: 3 } }, "backupSchedule.targetId"],
    ["an unknown field", { name: "x11", password: "mine" }, "password"],
  ])("refuses %s with a 400 naming %s, writing nothing", async (_what, input, field) => {
    const before = await dbsOf(o);
    const err = await refusalBody(() => createDatabase({ ctx: o, envId: o.envId, input }));
    expect(err).toMatchObject({ code: "invalid_input", field });
    expect(await dbsOf(o)).toBe(before);
  });

  it("refuses a backup target whose endpoint is loopback, private or link-local by default (400 naming endpoint, nothing written)", async () => {
    const before = (await db.select({ n: count() }).from(backupTarget))[0]!.n;
    const input = { name: "inside", bucket: "b", region: "us-east-1", accessKey: "AK", secretKey: "super-secret-key" };
    for (const endpoint of ["http://127.0.0.1:9000", "http://localhost:9000", "http://169.254.169.254", "http://[::127.0.0.1]:9000", "http://[64:ff9b:1::a00:1]", "http://192.168.1.20:9000"]) {
      const err = await refusalBody(() => createBackupTarget({ ctx: o, input: { ...input, endpoint } }));
      expect(err, endpoint).toMatchObject({ code: "invalid_input", field: "endpoint", message: expect.stringContaining("LEVELRAIL_ALLOW_PRIVATE_TARGETS") });
    }
    expect((await db.select({ n: count() }).from(backupTarget))[0]!.n).toBe(before);
    // A public name passes here (it is checked again, resolved, whenever the worker connects).
    expect((await createBackupTarget({ ctx: o, input: { ...input, name: "public", endpoint: "https://s3.example.com" } })).endpoint).toBe("https://s3.example.com");
    // With the installation's setting, a loopback endpoint is allowed.
    await createBackupTarget({ ctx: { ...o, allowPrivateTargets: true }, input: { ...input, name: "loopback", endpoint: "http://127.0.0.1:9000" } });
    expect((await listBackupTargets({ ctx: o })).map((t) => t.name)).toEqual(expect.arrayContaining(["public", "loopback"]));
  });

  it("refuses another organization's backup target as if it did not exist", async () => {
    const theirs = await target(other);
    const err = await refusalBody(() => createDatabase({ ctx: o, envId: o.envId, input: { name: "x12", backupSchedule: { cron: "0 3 * * *", targetId: theirs.id, keep: 3 } } }));
    expect(err).toMatchObject({ code: "invalid_input", field: "backupSchedule.targetId", message: "backupSchedule.targetId: no such backup target in this organization" });
  });

  it("refuses a second database of the same name (409), and one named like a service of the environment", async () => {
    expect(await refusalBody(() => createDatabase({ ctx: o, envId: o.envId, input: { name: "shop-db" } }))).toMatchObject({ code: "conflict", field: "name" });
    await createApp({ ctx: o, envId: o.envId, input: { name: "shop" } });
    await createService({ ctx: o, envId: o.envId, input: { name: "web", app: "shop", image: "registry.example.com/web:1", port: 80 } });
    expect(await refusalBody(() => createDatabase({ ctx: o, envId: o.envId, input: { name: "web" } }))).toMatchObject({ code: "conflict", field: "name" });
  });

  it("answers 404 for another organization's environment and database", async () => {
    expect(await refusalBody(() => createDatabase({ ctx: other, envId: o.envId, input: { name: "mine" } }))).toMatchObject({ code: "not_found" });
    expect(await refusalBody(() => getDatabase({ ctx: other, envId: o.envId, name: "shop-db" }))).toMatchObject({ code: "not_found" });
  });

  it("counts against the databases quota (409 quota_exceeded, nothing written)", async () => {
    const q = await seedOrg(db, "dbs-quota", kit);
    await setOrgQuotas(db, q.orgId, { databases: 1 }, undefined);
    await createDatabase({ ctx: q, envId: q.envId, input: { name: "one" } });
    const err = await refusalBody(() => createDatabase({ ctx: q, envId: q.envId, input: { name: "two" } }));
    expect(err).toMatchObject({ code: "quota_exceeded" });
    expect(err.message).toContain("databases (1)");
    expect(await dbsOf(q)).toBe(1);
  });
});

describe("attaching a database", () => {
  let o: Org;
  beforeAll(async () => {
    o = await seedOrg(db, "dbs-attach", kit);
    await createApp({ ctx: o, envId: o.envId, input: { name: "shop" } });
    await createApp({ ctx: o, envId: o.envId, input: { name: "admin" } });
    await createDatabase({ ctx: o, envId: o.envId, input: { name: "shop-db" } });
  });

  it("lets two services of two apps attach the same database; the effective env shows source database and no value", async () => {
    await createService({ ctx: o, envId: o.envId, input: { name: "web", app: "shop", image: "registry.example.com/web:1", port: 80, databaseEnv: { DATABASE_URL: { from: "shop-db" } } } });
    await createService({ ctx: o, envId: o.envId, input: { name: "panel", app: "admin", image: "registry.example.com/panel:1", port: 80 } });
    await patchService({ ctx: o, envId: o.envId, name: "panel", input: { databaseEnv: { SHOP_DB: { from: "shop-db" } } } });
    const env = await effectiveEnv({ ctx: o, envId: o.envId, name: "web" });
    expect(env.find((e) => e.key === "DATABASE_URL")).toMatchObject({ source: "database", value: null });
    const d = await getDatabase({ ctx: o, envId: o.envId, name: "shop-db" });
    expect(d.attachedBy).toEqual([
      { service: "panel", app: "admin", key: "SHOP_DB" },
      { service: "web", app: "shop", key: "DATABASE_URL" },
    ]);
  });

  it("refuses a database of another environment or organization exactly like one that does not exist (400 naming databaseEnv)", async () => {
    const staging = await createEnvironment({ ctx: o, projectId: o.projectId, input: { name: "staging" } });
    await createDatabase({ ctx: o, envId: staging.id, input: { name: "staging-db" } });
    const other = await seedOrg(db, "dbs-attach-other", kit);
    await createDatabase({ ctx: other, envId: other.envId, input: { name: "their-db" } });
    const bodies = [];
    for (const from of ["staging-db", "their-db", "no-such-db"]) {
      const err = await refusalBody(() => patchService({ ctx: o, envId: o.envId, name: "web", input: { databaseEnv: { DATABASE_URL: { from } } } }));
      expect(err).toMatchObject({ code: "invalid_input", field: "databaseEnv" });
      bodies.push(err.message.replace(from, "X"));
    }
    expect(new Set(bodies).size).toBe(1);
  });

  it("refuses to delete an attached database (409 naming who attaches it)", async () => {
    const err = await refusalBody(() => deleteDatabase({ ctx: o, envId: o.envId, name: "shop-db", dropData: false }));
    expect(err.code).toBe("conflict");
    expect(err.message).toContain("panel, web");
  });

  it("clones an environment's databases empty (same name, new id, no schedule), so the clone's attachments resolve", async () => {
    const clone = await createEnvironment({ ctx: o, projectId: o.projectId, input: { name: "preview", from: o.envId } });
    const [src] = await listDatabases({ ctx: o, envId: o.envId });
    const [copy] = await listDatabases({ ctx: o, envId: clone.id });
    expect(copy).toMatchObject({ name: "shop-db", image: src!.image, version: src!.version, backupSchedule: null });
    expect(copy!.id).not.toBe(src!.id);
    const env = await effectiveEnv({ ctx: o, envId: clone.id, name: "web" });
    expect(env.find((e) => e.key === "DATABASE_URL")).toMatchObject({ source: "database", value: null });
  });
});

describe("schedules, backups and restores", () => {
  let o: Org;
  let targetId: string;
  beforeAll(async () => {
    o = await seedOrg(db, "dbs-backups", kit);
    targetId = (await target(o)).id;
    await createDatabase({ ctx: o, envId: o.envId, input: { name: "main-db" } });
  });

  it("needs a target to back up to: the schedule's, or one named (400 naming targetId)", async () => {
    expect(await refusalBody(() => requestBackup({ ctx: o, envId: o.envId, name: "main-db", input: {} }))).toMatchObject({ code: "invalid_input", field: "targetId" });
    const b = await requestBackup({ ctx: o, envId: o.envId, name: "main-db", input: { targetId } });
    expect(b).toMatchObject({ status: "running", step: "queued", targetId, trigger: "manual" });
    expect(await refusalBody(() => requestBackup({ ctx: o, envId: o.envId, name: "main-db", input: { targetId } }))).toMatchObject({ code: "conflict" });
    expect(await refusalBody(() => requestVerify({ ctx: o, envId: o.envId, name: "main-db", id: b.id }))).toMatchObject({ code: "conflict" });
    expect(await refusalBody(() => restoreBackup({ ctx: o, envId: o.envId, name: "main-db", input: { backupId: b.id, replace: true } }))).toMatchObject({ code: "conflict", field: "backupId" });
  });

  it("sets a schedule with PATCH (and refuses other fields); a target a schedule uses cannot be deleted (409 naming the database)", async () => {
    const d = await patchDatabase({ ctx: o, envId: o.envId, name: "main-db", input: { backupSchedule: { cron: "0 3 * * *", targetId, keep: 7 } } });
    expect(d.backupSchedule).toEqual({ cron: "0 3 * * *", targetId, keep: 7 });
    expect(await refusalBody(() => patchDatabase({ ctx: o, envId: o.envId, name: "main-db", input: { version: "16" } }))).toMatchObject({ code: "invalid_input", field: "version" });
    const err = await refusalBody(() => deleteBackupTarget({ ctx: o, id: targetId }));
    expect(err.code).toBe("conflict");
    expect(err.message).toContain("main-db");
  });

  it("restores an unverified backup only when asked to anyway, and never into a taken name", async () => {
    const [d] = await listDatabases({ ctx: o, envId: o.envId });
    const [b] = await db
      .insert(backup)
      .values({ orgId: o.orgId, databaseId: d!.id, targetId, status: "unverified", objectKey: "k", sha256: "0".repeat(64), inventory: { tables: {}, schema: [] }, verification: { at: new Date().toISOString(), ok: false, differences: ["table public.t: 3 rows dumped, 2 restored"], sha256: null } })
      .returning();
    const err = await refusalBody(() => restoreBackup({ ctx: o, envId: o.envId, name: "main-db", input: { backupId: b!.id, replace: true } }));
    expect(err).toMatchObject({ code: "conflict", field: "acceptUnverified" });
    expect(err.message).toContain("3 rows dumped, 2 restored");
    expect(await refusalBody(() => restoreBackup({ ctx: o, envId: o.envId, name: "main-db", input: { backupId: b!.id, into: "main-db", acceptUnverified: true } }))).toMatchObject({ code: "conflict", field: "into" });
    expect(await refusalBody(() => restoreBackup({ ctx: o, envId: o.envId, name: "main-db", input: { backupId: b!.id } }))).toMatchObject({ code: "invalid_input", field: "into" });
    const { restore, database: copy } = await restoreBackup({ ctx: o, envId: o.envId, name: "main-db", input: { backupId: b!.id, into: "main-copy", acceptUnverified: true } });
    expect(restore).toMatchObject({ mode: "into", status: "running", databaseId: copy.id, volume: copy.volume });
    const replace = await restoreBackup({ ctx: o, envId: o.envId, name: "main-db", input: { backupId: b!.id, replace: true, acceptUnverified: true } });
    expect(replace.restore.volume).toBe(`levelrail-db-${d!.id}-${replace.restore.id.slice(0, 8)}`);
    expect(await refusalBody(() => restoreBackup({ ctx: o, envId: o.envId, name: "main-db", input: { backupId: b!.id, replace: true, acceptUnverified: true } }))).toMatchObject({ code: "conflict" });
    expect((await listBackups({ ctx: o, envId: o.envId, name: "main-db" })).length).toBe(2);
  });

  it("removes a kept volume only by its typed name, and deletes a database keeping its data unless asked", async () => {
    expect(await refusalBody(() => removeVolume({ ctx: o, envId: o.envId, name: "main-db", volume: "nope", input: { confirm: "nope" } }))).toMatchObject({ code: "not_found" });
    await createDatabase({ ctx: o, envId: o.envId, input: { name: "scratch" } });
    const [d] = (await listDatabases({ ctx: o, envId: o.envId })).filter((x) => x.name === "scratch");
    await deleteDatabase({ ctx: o, envId: o.envId, name: "scratch", dropData: true });
    const [t] = await db.select().from(databaseTeardown).where(eq(databaseTeardown.databaseId, d!.id));
    expect(t?.dropData).toBe(true);
    expect(await db.select().from(managedDatabase).where(and(eq(managedDatabase.id, d!.id)))).toEqual([]);
  });
});
