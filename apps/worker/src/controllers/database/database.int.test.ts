// Managed PostgreSQL end to end (issue 13) against the real engine, the PostgreSQL test image, a
// real S3 server on loopback and the worker: create, attach (a service reads and writes rows
// through DATABASE_URL), back up (verified by a restore), schedule and prune, restore into a new
// database and in place, and the faults: a refusing target, a corrupted object, a failing restore.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, rmdirSync, truncateSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "@levelrail/services/app/app";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { requestBackup, requestVerify, restoreBackup } from "@levelrail/services/database/backups";
import { type BackupView, getBackup, getDatabase, listBackups } from "@levelrail/services/database/view";
import { createDatabase, patchDatabase, removeVolume } from "@levelrail/services/database/write";
import { effectiveEnv } from "@levelrail/services/env/effective";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { DatabaseRoles, Labels, databaseFilter, instanceFilter, networkName } from "@levelrail/spec/naming";
import { ensureTestImage } from "@levelrail/testkit/images";
import { POSTGRES_TEST_IMAGE, ensurePostgresImage } from "@levelrail/testkit/postgres-image";
import { refusalBody } from "@levelrail/testkit/refusal";
import { type S3Server, startS3Server } from "@levelrail/testkit/s3";
import { waitFor } from "@levelrail/testkit/wait";
import { setupSuite } from "../../../test/harness";
import { runInside } from "../../../test/inside";

let s: Awaited<ReturnType<typeof setupSuite>>;
let s3: S3Server;
let targetId: string;
let worker: Awaited<ReturnType<typeof s.startWorker>>;
const BUCKET = "backups";

/** A service image that has psql: the PostgreSQL test image serving GET / and /healthz with busybox httpd. */
const CLIENT = { tag: "levelrail-test/pg-client:v1", body: "client\n", healthy: true, from: POSTGRES_TEST_IMAGE } as const;

beforeAll(async () => {
  s = await setupSuite("databases");
  await ensurePostgresImage(s.runtime.docker);
  await ensureTestImage(s.runtime.docker, CLIENT);
  s3 = await startS3Server({ buckets: [BUCKET] });
  targetId = (await createBackupTarget({ ctx: s.ctx, input: { name: "local-s3", endpoint: s3.endpoint, bucket: BUCKET, region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey } })).id;
  worker = await s.startWorker({ probeIntervalMs: 100 });
}, 240_000);

afterAll(async () => {
  await s?.teardown();
  for (const v of (await s?.runtime.listVolumes(instanceFilter(s.shortName))) ?? []) await s.runtime.removeVolume(v.name).catch(() => {});
  await s3?.stop();
}, 120_000);

const database = (name: string) => getDatabase({ ctx: s.ctx, envId: s.ctx.envId, name });
const waitRunning = (name: string, timeoutMs = 120_000) =>
  waitFor(`database ${name} to run`, async () => ((await database(name)).phase === "running" ? database(name) : undefined), {
    timeoutMs,
    describe: async () => JSON.stringify(await database(name)),
  });
const waitBackup = (db: string, id: string, done: BackupView["status"][] = ["verified", "unverified", "failed", "interrupted"], timeoutMs = 180_000) =>
  waitFor(`backup ${id} of ${db} to finish`, async () => {
    const b = await getBackup({ ctx: s.ctx, envId: s.ctx.envId, name: db, id });
    return done.includes(b.status) && !(b.status === "verified" && b.step) ? b : undefined;
  }, { timeoutMs, describe: async () => JSON.stringify(await getBackup({ ctx: s.ctx, envId: s.ctx.envId, name: db, id })) });

/** The server container of a database (by its labels). */
async function serverOf(name: string) {
  const d = await database(name);
  const [c] = (await s.runtime.listContainers(databaseFilter(s.shortName, d.id))).filter((x) => x.labels[Labels.role] === DatabaseRoles.database && x.state === "running");
  if (!c) throw new Error(`no running server for ${name}`);
  return c;
}

/** SQL through the service's own DATABASE_URL, inside the service's container (psql, no shell on the host). */
async function viaService(service: string, sqlText: string): Promise<string> {
  const [c] = (await s.containers(service)).filter((x) => x.state === "running" && x.labels[Labels.role] === "service");
  const r = await runInside(s.runtime, c!.id, ["sh", "-c", 'exec psql "$DATABASE_URL" -X -q -v ON_ERROR_STOP=1 -Atc "$0"', sqlText]);
  if (r.exitCode !== 0) throw new Error(`psql failed: ${r.out}`);
  return r.out.trim();
}

/** SQL inside a database's own server, over its socket. */
async function inServer(name: string, sqlText: string): Promise<string> {
  const c = await serverOf(name);
  const r = await runInside(s.runtime, c.id, ["psql", "-X", "-q", "-U", "postgres", "-d", name, "-v", "ON_ERROR_STOP=1", "-Atc", sqlText]);
  if (r.exitCode !== 0) throw new Error(`psql failed: ${r.out}`);
  return r.out.trim();
}

const sha256File = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("a managed database", () => {
  let firstBackup: BackupView;

  it("starts on its named volume, in a container named <short>-db-<name>-<hash> labelled role=database", async () => {
    const created = await createDatabase({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop-db", version: "15", image: POSTGRES_TEST_IMAGE } });
    const d = await waitRunning("shop-db");
    const c = await serverOf("shop-db");
    expect(c.name).toMatch(new RegExp(`^${s.shortName}-db-shop-db-[0-9a-f]{12}$`));
    expect(c.labels).toMatchObject({ [Labels.managed]: "true", [Labels.instance]: s.shortName, [Labels.database]: created.id, [Labels.role]: "database" });
    const inspect = await s.runtime.docker.getContainer(c.id).inspect();
    expect(inspect.Mounts.find((m) => m.Destination === "/var/lib/postgresql/data")?.Name).toBe(`${s.shortName}-db-${created.id}`);
    expect(inspect.Config.Env?.some((e) => e.startsWith("POSTGRES_PASSWORD="))).toBe(true);
    expect(JSON.stringify(d)).not.toContain((inspect.Config.Env ?? []).find((e) => e.startsWith("POSTGRES_PASSWORD="))!.slice("POSTGRES_PASSWORD=".length));
  });

  it("attaches to a service: its container reads and writes rows through DATABASE_URL on its app network", async () => {
    await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
    await createService({
      ctx: s.ctx,
      envId: s.ctx.envId,
      input: { name: "web", app: "shop", image: CLIENT.tag, port: 8080, healthPath: "/healthz", databaseEnv: { DATABASE_URL: { from: "shop-db" } } },
    });
    const rel = await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: {} });
    await s.waitRelease("web", rel.id);
    expect(await viaService("web", "create table notes (id serial primary key, body text); insert into notes (body) values ('a'), ('b'), ('c'); select count(*) from notes")).toBe("3");
    expect(await viaService("web", "select string_agg(body, ',' order by id) from notes")).toBe("a,b,c");
    const env = await effectiveEnv({ ctx: s.ctx, envId: s.ctx.envId, name: "web" });
    expect(env.find((e) => e.key === "DATABASE_URL")).toMatchObject({ source: "database", value: null });
    const c = await serverOf("shop-db");
    const d = await database("shop-db");
    expect(Object.keys(c.addresses)).toContain(networkName(s.shortName, (await s.runtime.inspectContainer((await s.containers("web"))[0]!.id))!.labels[Labels.app]!));
    expect(d.attachedBy).toEqual([{ service: "web", app: "shop", key: "DATABASE_URL" }]);
  }, 180_000);

  it("keeps its data on its volume when its container is removed behind its back, and across a worker restart", async () => {
    const gone = await serverOf("shop-db");
    await s.runtime.removeContainer(gone.id);
    // The resync (or the next wake-up) recreates it on the same volume.
    await worker.resync();
    const back = await waitFor("a new server", async () => {
      const c = await serverOf("shop-db").catch(() => null);
      return c && c.id !== gone.id && (await database("shop-db")).phase === "running" ? c : undefined;
    }, { timeoutMs: 120_000 });
    expect(back.name).toBe(gone.name);
    await waitFor("the service to reach it again", async () => (await viaService("web", "select count(*) from notes").catch(() => "")) === "3" || undefined, { timeoutMs: 60_000 });
    await s.stopWorker();
    worker = await s.startWorker({ probeIntervalMs: 100 });
    await waitRunning("shop-db");
    expect((await serverOf("shop-db")).id).toBe(back.id);
    expect(await inServer("shop-db", "select string_agg(body, ',' order by id) from notes")).toBe("a,b,c");
  }, 240_000);

  it("is replaced on its volume when the engine can no longer exec in its container (its filesystem gone, as an engine restart can leave it)", async () => {
    // Not attached (on network `none`), so its readiness is the image's own check by exec.
    await createDatabase({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "lone-db", version: "15", image: POSTGRES_TEST_IMAGE } });
    await waitRunning("lone-db");
    expect(await inServer("lone-db", "create table t (n int); insert into t values (7); select n from t")).toBe("7");
    const broken = await serverOf("lone-db");
    // What dockerd's double clean-up after a restart does (moby#43402): the rootfs is unmounted and
    // removed on the host while the container's processes run on in their own mount namespace.
    const merged = ((await s.runtime.docker.getContainer(broken.id).inspect()).GraphDriver.Data as unknown as { MergedDir: string }).MergedDir;
    expect(spawnSync("umount", ["-l", merged]).status).toBe(0);
    rmdirSync(merged);
    const probe = await runInside(s.runtime, broken.id, ["psql", "-X", "-U", "postgres", "-Atc", "select 1"]);
    expect(probe.out).toMatch(/starting setns process/);
    const back = await waitFor("a new server", async () => {
      const c = await serverOf("lone-db").catch(() => null);
      return c && c.id !== broken.id && (await database("lone-db")).phase === "running" ? c : undefined;
    }, { timeoutMs: 150_000, describe: async () => JSON.stringify(await database("lone-db")) });
    expect(back.name).toBe(broken.name);
    expect(await inServer("lone-db", "select n from t")).toBe("7");
  }, 240_000);

  it("backs up now: the object is on the target with the recorded size and sha256, and the backup is verified by a restore", async () => {
    const asked = await requestBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", input: { targetId } });
    firstBackup = await waitBackup("shop-db", asked.id);
    expect(firstBackup).toMatchObject({ status: "verified", targetId, trigger: "manual" });
    expect(firstBackup.verification).toMatchObject({ ok: true, differences: [] });
    const d = await database("shop-db");
    expect(firstBackup.objectKey).toMatch(new RegExp(`^${s.shortName}/${d.id}/\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\.dump$`));
    const file = s3.objectPath(BUCKET, firstBackup.objectKey!);
    expect(readFileSync(file).length).toBe(firstBackup.sizeBytes);
    expect(sha256File(file)).toBe(firstBackup.sha256);
    // The throwaway server and its volume are gone.
    const left = await s.runtime.listContainers(databaseFilter(s.shortName, d.id));
    expect(left.map((c) => c.labels[Labels.role])).toEqual(["database"]);
  }, 240_000);

  it("restores into a new database that then runs with the backup's rows", async () => {
    const { database: copy } = await restoreBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", input: { backupId: firstBackup.id, into: "shop-copy" } });
    expect(copy.name).toBe("shop-copy");
    await waitRunning("shop-copy", 180_000);
    expect(await inServer("shop-copy", "select string_agg(body, ',' order by id) from notes")).toBe("a,b,c");
    expect((await database("shop-copy")).restores[0]).toMatchObject({ mode: "into", status: "succeeded" });
  }, 240_000);

  it("replaces the data in place only once the restore succeeded, keeping the previous volume until it is removed by name", async () => {
    await viaService("web", "insert into notes (body) values ('d'), ('e')");
    const before = await database("shop-db");
    const { restore } = await restoreBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", input: { backupId: firstBackup.id, replace: true } });
    const done = await waitFor("the replace to finish", async () => {
      const d = await database("shop-db");
      const r = d.restores.find((x) => x.id === restore.id);
      return r && r.status !== "running" && d.phase === "running" && d.volume === restore.volume ? d : undefined;
    }, { timeoutMs: 240_000, describe: async () => JSON.stringify(await database("shop-db")) });
    expect(done.restores[0]).toMatchObject({ status: "succeeded" });
    expect(done.previousVolumes.map((v) => v.name)).toEqual([before.volume]);
    // The service reaches the switched data under the same name (the new server joined its network).
    await waitFor("the service to read the restored rows", async () => (await viaService("web", "select count(*) from notes").catch(() => "")) === "3" || undefined, { timeoutMs: 60_000 });
    expect(await s.runtime.inspectVolume(before.volume)).not.toBeNull();
    expect(await refusalBody(() => removeVolume({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", volume: before.volume, input: { confirm: "shop-db" } }))).toMatchObject({ field: "confirm" });
    await removeVolume({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", volume: before.volume, input: { confirm: before.volume } });
    await waitFor("the old volume to go", async () => ((await s.runtime.inspectVolume(before.volume)) === null && (await database("shop-db")).previousVolumes.length === 0) || undefined, { timeoutMs: 60_000 });
  }, 300_000);

  it("a restore that fails half way leaves the database serving its old data and names the reason", async () => {
    const b = await waitBackup("shop-db", (await requestBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", input: { targetId } })).id);
    expect(b.status).toBe("verified");
    await viaService("web", "insert into notes (body) values ('kept')");
    const file = s3.objectPath(BUCKET, b.objectKey!);
    truncateSync(file, Math.floor(b.sizeBytes! / 2));
    const { restore } = await restoreBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", input: { backupId: b.id, replace: true } });
    const failed = await waitFor("the restore to fail", async () => (await database("shop-db")).restores.find((r) => r.id === restore.id && r.status === "failed"), { timeoutMs: 180_000 });
    expect(failed.message).toMatch(/^restore failed: /);
    expect(await viaService("web", "select string_agg(body, ',' order by id) from notes")).toBe("a,b,c,kept");
    expect((await database("shop-db")).phase).toBe("running");
    expect(await s.runtime.inspectVolume(restore.volume)).toBeNull();
  }, 300_000);

  it("re-verifies a backup whose stored object was corrupted: unverified, and restore then needs acceptUnverified", async () => {
    const file = s3.objectPath(BUCKET, firstBackup.objectKey!);
    const bytes = readFileSync(file);
    for (let i = 200; i < bytes.length; i += 997) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(file, bytes);
    await requestVerify({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", id: firstBackup.id });
    const b = await waitFor("the re-verification", async () => {
      const x = await getBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", id: firstBackup.id });
      return x.status === "unverified" && !x.step ? x : undefined;
    }, { timeoutMs: 180_000 });
    expect(b.verification?.ok).toBe(false);
    expect(b.verification?.differences.join(" ")).toMatch(/the stored object's sha256 is [0-9a-f]{64}, not the [0-9a-f]{64} recorded when it was written/);
    const err = await refusalBody(() => restoreBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", input: { backupId: firstBackup.id, into: "from-corrupt" } }));
    expect(err).toMatchObject({ code: "conflict", field: "acceptUnverified" });
  }, 240_000);

  it.each([
    ["a wrong secret key", () => ({ endpoint: s3.endpoint, bucket: BUCKET, secretKey: `${s3.secretKey}x` }), /SignatureDoesNotMatch/],
    ["a missing bucket", () => ({ endpoint: s3.endpoint, bucket: "no-such-bucket", secretKey: s3.secretKey }), /no-such-bucket|NoSuchBucket/],
    ["a server that is down", () => ({ endpoint: "http://127.0.0.1:9", bucket: BUCKET, secretKey: s3.secretKey }), /cannot be reached|ECONNREFUSED/],
  ])("fails a backup to a target with %s, with the target's reason; nothing verified, the database untouched", async (label, over, reason) => {
    const o = over();
    const t = await createBackupTarget({ ctx: s.ctx, input: { name: `bad-${label.length}`, region: s3.region, accessKey: s3.accessKey, ...o } });
    const b = await waitBackup("shop-db", (await requestBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", input: { targetId: t.id } })).id);
    expect(b.status).toBe("failed");
    expect(b.message).toMatch(reason);
    expect(b.message).not.toContain(o.secretKey);
    expect(b.verification).toBeNull();
    expect((await database("shop-db")).phase).toBe("running");
    expect(await viaService("web", "select count(*) from notes")).toBe("4");
  }, 120_000);

  it("runs on its schedule and prunes beyond keep, never a verified backup for an unverified one", async () => {
    await patchDatabase({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", input: { backupSchedule: { cron: "* * * * *", targetId, keep: 1 } } });
    // The keep rule runs just after the backup is marked verified: wait for both, then look.
    const stored = (list: Awaited<ReturnType<typeof listBackups>>) => list.filter((b) => (b.status === "verified" || b.status === "unverified") && !b.prunedAt);
    const list = await waitFor("a scheduled backup to be verified and the others pruned", async () => {
      const l = await listBackups({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db" });
      const kept = stored(l);
      return kept.length === 1 && kept[0]!.trigger === "schedule" && kept[0]!.status === "verified" && !kept[0]!.step ? l : undefined;
    }, { timeoutMs: 200_000, intervalMs: 1000 });
    // keep 1: the scheduled verified one stays; every other stored one was pruned from the target.
    expect(list.filter((b) => b.prunedAt).length).toBeGreaterThan(0);
    for (const b of list.filter((x) => x.prunedAt)) expect(() => readFileSync(s3.objectPath(BUCKET, b.objectKey!))).toThrow();
    await patchDatabase({ ctx: s.ctx, envId: s.ctx.envId, name: "shop-db", input: { backupSchedule: null } });
  }, 240_000);
});
