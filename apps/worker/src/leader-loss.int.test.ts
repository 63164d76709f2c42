// A worker that loses the leader lock stops its work in flight (issue 22, item 13). Two workers in
// this process, each with its own PostgreSQL client and leader loop, on one database: A leads and
// runs a backup whose psql (the tenant image's) never answers; A's lock session is terminated (as
// a network cut or a database failover ends it). A's work is aborted at once: the psql process in
// the database's container is killed, A's own outcome write is fenced off (its heartbeat row names
// B), and B, leading now, marks the backup interrupted, which it stays.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sql, createDb } from "@levelrail/db/client";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { requestBackup } from "@levelrail/services/database/backups";
import { getBackup, getDatabase } from "@levelrail/services/database/view";
import { createDatabase } from "@levelrail/services/database/write";
import { DatabaseRoles, Labels, instanceFilter } from "@levelrail/spec/naming";
import { ensureTestImage } from "@levelrail/testkit/images";
import { type S3Server, startS3Server } from "@levelrail/testkit/s3";
import { waitFor } from "@levelrail/testkit/wait";
import { setupSuite } from "../test/harness";
import { pgDatabaseStore } from "./database-store";
import { LostLeadError } from "./fence";
import { runAsLeader } from "./leader";
import { startWorker } from "./wiring";

let s: Awaited<ReturnType<typeof setupSuite>>;
let s3: S3Server;
const clients: Sql[] = [];
const leaders: ReturnType<typeof runAsLeader>[] = [];
const script = (body: string) => ({ content: `#!/bin/sh\n${body}\n`, mode: 0o755 });
/** Ready at once (pg_isready exits 0), but its psql never answers: a backup stays in flight on it. */
const SILENT = {
  tag: "levelrail-test/pg-silent-psql:v1",
  body: "silent\n",
  healthy: false,
  cmd: ["/bin/busybox", "sleep", "100000"],
  files: { "bin/pg_isready": script("exit 0"), "bin/psql": script("exec /bin/busybox sleep 100003") },
} as const;

beforeAll(async () => {
  s = await setupSuite("leadloss");
  await ensureTestImage(s.runtime.docker, SILENT);
  s3 = await startS3Server({ buckets: ["lead-loss"] });
}, 240_000);

afterAll(async () => {
  for (const l of leaders) await l.stop().catch(() => {});
  for (const c of clients) await c.end({ timeout: 5 }).catch(() => {});
  await s?.teardown();
  for (const v of (await s?.runtime.listVolumes(instanceFilter(s.shortName))) ?? []) await s.runtime.removeVolume(v.name).catch(() => {});
  await s3?.stop();
}, 120_000);

/** One worker process's worth: its own client and leader loop, its log lines prefixed with `name`. */
function worker(name: string, logs: string[]) {
  const { db, sql } = createDb(s.databaseUrl);
  clients.push(sql);
  const log = (l: string) => logs.push(`${name} ${l}`);
  const leader = runAsLeader({
    lockClient: () => createDb(s.databaseUrl, { max: 1 }).sql,
    lockName: `levelrail.worker.${s.shortName}`,
    pollMs: 200,
    log,
    async lead(signal) {
      const w = await startWorker({ db, sql, runtime: s.runtime, shortName: s.shortName, keyring: s.kit.keyring, resyncMs: 2_000, meshDnsPort: s.dataPlanePort, dataPlaneStateFile: s.stateFile, drainMs: 300, allowPrivateTargets: true, log, signal });
      return () => w.stop();
    },
  });
  leaders.push(leader);
  return leader;
}

async function psqlProcesses(): Promise<number> {
  const servers = (await s.runtime.listContainers(instanceFilter(s.shortName))).filter((c) => c.labels[Labels.role] === DatabaseRoles.database && c.state === "running");
  let n = 0;
  for (const c of servers) {
    const top = (await s.runtime.docker.getContainer(c.id).top({ ps_args: "-o pid,args" })) as { Processes: string[][] };
    n += top.Processes.filter((p) => /sleep 100003/.test(p.join(" "))).length;
  }
  return n;
}

describe("a worker that loses the leader lock", () => {
  it("kills its in-flight backup's client, and its late write cannot undo the new leader's 'interrupted'", async () => {
    const logs: string[] = [];
    const target = await createBackupTarget({ ctx: s.ctx, input: { name: "s3", endpoint: s3.endpoint, bucket: "lead-loss", region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey } });
    await createDatabase({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "orders", version: "15", image: SILENT.tag } });
    const a = worker("A", logs);
    await waitFor("A to lead", async () => (a.isLeader() ? true : undefined), { timeoutMs: 30_000 });
    await waitFor("orders to run", async () => ((await getDatabase({ ctx: s.ctx, envId: s.ctx.envId, name: "orders" })).phase === "running" ? true : undefined), { timeoutMs: 60_000 });
    const { id } = await requestBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "orders", input: { targetId: target.id } });
    const backup = () => getBackup({ ctx: s.ctx, envId: s.ctx.envId, name: "orders", id });
    await waitFor("A's backup to hang in its psql", async () => ((await backup()).step === "dumping" && (await psqlProcesses()) === 1 ? true : undefined), { timeoutMs: 30_000 });

    const b = worker("B", logs);
    await new Promise((r) => setTimeout(r, 500)); // B stands by
    expect(b.isLeader()).toBe(false);
    const [{ runner: runnerA } = { runner: "" }] = await s.sql<{ runner: string }[]>`select runner from worker_heartbeat where short_name = ${s.shortName}`;
    expect(runnerA).not.toBe("");
    // A's lock session ends (the database restarted, the network cut it): the lock goes with it.
    const cut = Date.now();
    await s.sql`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`;

    await waitFor("A's psql to be killed", async () => ((await psqlProcesses()) === 0 ? true : undefined), { timeoutMs: 10_000 });
    const killedMs = Date.now() - cut;
    await waitFor("B to lead", async () => (b.isLeader() ? true : undefined), { timeoutMs: 10_000 });
    const runnerB = await waitFor("B's heartbeat", async () => {
      const [row] = await s.sql<{ runner: string }[]>`select runner from worker_heartbeat where short_name = ${s.shortName}`;
      return row && row.runner !== runnerA ? row.runner : undefined;
    });
    const final = await waitFor("the backup to be marked interrupted", async () => ((await backup()).status === "interrupted" ? backup() : undefined), {
      timeoutMs: 30_000,
      describe: async () => `${JSON.stringify(await backup())}; the workers said: ${logs.filter((l) => /backup|lead|fence|refused/i.test(l)).slice(-15).join(" | ")}`,
    });
    console.log(`[leadloss] A's in-flight psql was killed ${killedMs} ms after its lock session ended; B marked the backup ${final.status}`);
    expect(a.isLeader()).toBe(false);
    expect(logs.some((l) => l.startsWith("A [leader] lost the lead"))).toBe(true);
    // Whatever A tried to write after losing the lead was refused; the run stays interrupted.
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await backup()).status).toBe("interrupted");
    const refused = logs.filter((l) => l.startsWith("A ") && l.includes("no longer leads")).length;
    console.log(`[leadloss] writes of A refused by the fence on their own: ${refused}`);
    // And deterministically: A's store (fenced by A's token) cannot write over B's outcome.
    const fenced = pgDatabaseStore(s.db, s.kit.keyring, { shortName: s.shortName, runner: runnerA });
    await expect(fenced.updateBackup(id, { status: "verified", message: "A's late outcome" })).rejects.toThrow(LostLeadError);
    expect((await backup()).status).toBe("interrupted");
    await expect(pgDatabaseStore(s.db, s.kit.keyring, { shortName: s.shortName, runner: runnerB }).updateBackup(id, { message: "B writes" })).resolves.toBeUndefined();
  }, 240_000);
});
