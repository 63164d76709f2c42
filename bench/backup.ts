/**
 * Backups of a managed PostgreSQL (issue 13), through the product against a baseline, in one run,
 * at two database sizes (50 MB and 200 MB of table data):
 *
 * - product: "back up now" until the backup is verified: the worker (in this process) dumps from
 *   an exported snapshot with row counts, streams the dump to a loopback S3 server (multipart,
 *   sha256 on the way), downloads it into a throwaway server of the same image, restores and compares.
 * - baseline: `pg_dump -Fc` in the same container piped straight to the same S3 server (the SDK's
 *   own multipart upload, same part size), then a plain restore of that object into a fresh server
 *   of the same image (started the same way), with nothing compared.
 *
 * Prints `backup ratio: <product ÷ baseline>` (target ≤ 1.5) and `backup rss growth: <MiB> MiB`
 * (this process, the one doing the backup: peak during the backup minus just before; target < 50,
 * and flat across sizes), after one small warm-up backup that loads what any first backup loads.
 */
import { randomBytes } from "node:crypto";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { Readable } from "node:stream";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { requestBackup } from "@levelrail/services/database/backups";
import { getBackup, getDatabase } from "@levelrail/services/database/view";
import { createDatabase } from "@levelrail/services/database/write";
import { DatabaseRoles, Labels, databaseFilter, instanceFilter } from "@levelrail/spec/naming";
import { POSTGRES_TEST_IMAGE, ensurePostgresImage } from "@levelrail/testkit/postgres-image";
import { startS3Server } from "@levelrail/testkit/s3";
import { waitFor } from "@levelrail/testkit/wait";
import { setupSuite } from "@levelrail/worker/harness";

const SIZES_MB = (process.env.BENCH_BACKUP_SIZES ?? "50,200").split(",").map(Number);
const BUCKET = "bench";
const MiB = 1024 * 1024;

const s = await setupSuite("benchbackup");
const { runtime } = s;
const s3 = await startS3Server({ buckets: [BUCKET] });
const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKey, secretAccessKey: s3.secretKey } });

async function psql(containerId: string, db: string, sqlText: string): Promise<string> {
  const out = await runtime.execStream(containerId, ["psql", "-X", "-q", "-U", "postgres", "-d", db, "-v", "ON_ERROR_STOP=1", "-Atc", sqlText], {});
  const chunks: Buffer[] = [];
  for await (const c of out.stdout) chunks.push(c as Buffer);
  const { exitCode, stderrTail } = await out.done;
  if (exitCode !== 0) throw new Error(`psql: ${stderrTail}`);
  return Buffer.concat(chunks).toString().trim();
}

async function serverOf(databaseId: string) {
  const [c] = (await runtime.listContainers(databaseFilter(s.shortName, databaseId))).filter((x) => x.labels[Labels.role] === DatabaseRoles.database && x.state === "running");
  if (!c) throw new Error("no running server");
  return c;
}

/** A running database of the test image, filled with `mb` MB of rows that do not compress away. */
async function filledDatabase(name: string, mb: number) {
  const d = await createDatabase({ ctx: s.ctx, envId: s.ctx.envId, input: { name, version: "15", image: POSTGRES_TEST_IMAGE } });
  await waitFor(`${name} to run`, async () => ((await getDatabase({ ctx: s.ctx, envId: s.ctx.envId, name })).phase === "running" ? true : undefined), { timeoutMs: 180_000 });
  const c = await serverOf(d.id);
  // ~1 KiB per row: 32 random hex md5s.
  const rows = Math.round((mb * MiB) / 1100);
  await psql(c.id, name, `create table big (id int primary key, body text); insert into big select g, (select string_agg(md5(random()::text || g), '') from generate_series(1, 32)) from generate_series(1, ${rows}) g; create table small (id int); insert into small select generate_series(1, 1000)`);
  const size = Number(await psql(c.id, name, "select pg_database_size(current_database())"));
  return { ...d, container: c, sizeBytes: size };
}

async function product(name: string): Promise<{ ms: number; rssGrowthMiB: number; sizeBytes: number }> {
  const target = (await createBackupTarget({ ctx: s.ctx, input: { name: `t-${name}`, endpoint: s3.endpoint, bucket: BUCKET, region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey } })).id;
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const b = await requestBackup({ ctx: s.ctx, envId: s.ctx.envId, name, input: { targetId: target } });
  const done = await waitFor(`backup of ${name}`, async () => {
    const x = await getBackup({ ctx: s.ctx, envId: s.ctx.envId, name, id: b.id });
    return x.status !== "running" ? x : undefined;
  }, { timeoutMs: 900_000, intervalMs: 50 });
  const ms = performance.now() - t0;
  clearInterval(sampler);
  if (done.status !== "verified") throw new Error(`backup of ${name} ended ${done.status}: ${done.message}`);
  return { ms, rssGrowthMiB: (peak - before) / MiB, sizeBytes: done.sizeBytes ?? 0 };
}

async function baseline(d: Awaited<ReturnType<typeof filledDatabase>>): Promise<number> {
  const t0 = performance.now();
  const key = `baseline/${d.name}-${randomBytes(4).toString("hex")}.dump`;
  const dump = await runtime.execStream(d.container.id, ["pg_dump", "-Fc", "-U", "postgres", "-d", d.name], {});
  await new Upload({ client, params: { Bucket: BUCKET, Key: key, Body: dump.stdout }, partSize: 8 * MiB, queueSize: 2 }).done();
  if ((await dump.done).exitCode !== 0) throw new Error("baseline pg_dump failed");
  // A plain restore into a fresh server of the same image, started the same way.
  const name = `${s.shortName}-bench-restore-${d.name}`;
  const id = await runtime.createContainer({
    name,
    Image: POSTGRES_TEST_IMAGE,
    Env: ["POSTGRES_PASSWORD=bench", `POSTGRES_DB=${d.name}`],
    Labels: { [Labels.managed]: "true", [Labels.instance]: s.shortName },
    HostConfig: { NetworkMode: "none" },
  });
  try {
    await runtime.startContainer(id!);
    await waitFor("the baseline server", async () => ((await runtime.execStream(id!, ["pg_isready", "-h", "127.0.0.1", "-U", "postgres"], {}).then(async (o) => { o.stdout.resume(); return (await o.done).exitCode; })) === 0 ? true : undefined), { timeoutMs: 120_000, intervalMs: 200 });
    const obj = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    const restore = await runtime.execStream(id!, ["pg_restore", "--no-owner", "-U", "postgres", "-d", d.name], { stdin: obj.Body as Readable });
    restore.stdout.resume();
    if ((await restore.done).exitCode !== 0) throw new Error("baseline restore failed");
    return performance.now() - t0;
  } finally {
    await runtime.removeContainer(id!);
  }
}

try {
  await ensurePostgresImage(runtime.docker);
  await s.startWorker({ probeIntervalMs: 100 });
  const warm = await filledDatabase("warmup", 1);
  await product(warm.name);
  for (const mb of SIZES_MB) {
    const d = await filledDatabase(`db${mb}`, mb);
    // The product between two baselines, so a warmer cache favours neither side.
    const before = await baseline(d);
    const p = await product(d.name);
    const base = (before + (await baseline(d))) / 2;
    console.log(`database ${mb} MB (pg_database_size ${(d.sizeBytes / MiB).toFixed(0)} MiB, dump ${(p.sizeBytes / MiB).toFixed(0)} MiB): product ${(p.ms / 1000).toFixed(1)} s, baseline ${(base / 1000).toFixed(1)} s`);
    console.log(`backup ratio: ${(p.ms / base).toFixed(2)} (${mb} MB)`);
    console.log(`backup rss growth: ${p.rssGrowthMiB.toFixed(1)} MiB (${mb} MB)`);
  }
} finally {
  await s.teardown();
  for (const v of await runtime.listVolumes(instanceFilter(s.shortName))) await runtime.removeVolume(v.name).catch(() => {});
  await s3.stop();
}
