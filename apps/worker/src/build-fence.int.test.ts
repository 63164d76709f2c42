// A worker that loses the leader lock while a build runs (issue 25 on issue 22's fence): two
// workers in this process, each with its own PostgreSQL client and leader loop, on one database.
// A leads and runs a build whose step sleeps on the engine; A's lock session is terminated. A's
// build is stopped on the engine, B (leading now) marks it interrupted, and it stays so: every
// write of A's build store (status, outcome, log, its source's last sight, a poll's build) is
// fenced off by the heartbeat row naming B.
import { execFile } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sql, createDb } from "@levelrail/db/client";
import { dockerImageBuilder } from "@levelrail/docker/build";
import { notifyDesired } from "@levelrail/db/notify";
import { build, buildLog, gitSource } from "@levelrail/db/schema/git";
import { createApp } from "@levelrail/services/app/app";
import { enqueueBuild } from "@levelrail/services/build/enqueue";
import { createService } from "@levelrail/services/service/write";
import { buildKey } from "@levelrail/spec/keys";
import { Labels } from "@levelrail/spec/naming";
import { type GitServer, type TestRepo, startGitServer } from "@levelrail/testkit/git";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../test/harness";
import { pgBuildStore, pgPollStore } from "./build-store";
import { LostLeadError } from "./fence";
import { runAsLeader } from "./leader";
import { startWorker } from "./wiring";

const run = promisify(execFile);
let s: Awaited<ReturnType<typeof setupSuite>>;
let git: GitServer;
let repo: TestRepo;
let serviceId: string;
let sourceId: string;
const clients: Sql[] = [];
const leaders: ReturnType<typeof runAsLeader>[] = [];
const workDirs: string[] = [];

beforeAll(async () => {
  s = await setupSuite("buildfence");
  git = await startGitServer();
  repo = await git.repo(`fence-${s.shortName}`);
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  serviceId = (await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } })).id;
  const [src] = await s.db.insert(gitSource).values({ orgId: s.ctx.orgId, serviceId, url: repo.url, ref: "main", webhookSecretSealed: s.kit.keyring.seal("hook") }).returning();
  sourceId = src!.id;
}, 180_000);

afterAll(async () => {
  for (const l of leaders) await l.stop().catch(() => {});
  for (const c of clients) await c.end({ timeout: 5 }).catch(() => {});
  await s?.teardown();
  await git?.close();
  for (const d of workDirs) rmSync(d, { recursive: true, force: true });
  const images = await s?.runtime.docker.listImages({ filters: { label: [`${Labels.instance}=${s.shortName}`] } });
  for (const i of images ?? []) await s.runtime.docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
}, 120_000);

/** One worker process's worth, with builds: its own client, leader loop and work dir, its log lines prefixed with `name`. */
function worker(name: string, logs: string[]) {
  const { db, sql } = createDb(s.databaseUrl);
  clients.push(sql);
  const workDir = mkdtempSync(join(tmpdir(), `lrbd-fence-${name}-`));
  workDirs.push(workDir);
  const log = (l: string) => logs.push(`${name} ${l}`);
  const leader = runAsLeader({
    lockClient: () => createDb(s.databaseUrl, { max: 1 }).sql,
    lockName: `levelrail.worker.${s.shortName}`,
    pollMs: 200,
    log,
    async lead(signal) {
      const w = await startWorker({
        db,
        sql,
        runtime: s.runtime,
        shortName: s.shortName,
        keyring: s.kit.keyring,
        resyncMs: 2_000,
        meshDnsPort: s.dataPlanePort,
        dataPlaneStateFile: s.stateFile,
        drainMs: 300,
        allowPrivateTargets: true,
        log,
        signal,
        builds: { builder: dockerImageBuilder(s.runtime.docker), fingerprintKey: s.kit.fingerprintKey, timeoutSeconds: 300, workDir, pollTickMs: 60_000 },
      });
      return () => w.stop();
    },
  });
  leaders.push(leader);
  return leader;
}

async function processRunning(argv: string): Promise<boolean> {
  const { stdout } = await run("ps", ["-eo", "args"]);
  return stdout.split("\n").some((l) => l.trim() === argv);
}

const row = async (id: string) => (await s.db.select().from(build).where(eq(build.id, id)))[0]!;
const logOf = async (id: string) => (await s.db.select().from(buildLog).where(eq(buildLog.buildId, id)).orderBy(asc(buildLog.seq))).map((l) => l.line);
const heartbeatRunner = async () => (await s.sql<{ runner: string }[]>`select runner from worker_heartbeat where short_name = ${s.shortName}`)[0]?.runner ?? "";

describe("a worker that loses the leader lock while a build runs", () => {
  it("stops the build on the engine; the new leader's 'interrupted' stands and none of the old leader's build writes land", async () => {
    const logs: string[] = [];
    const secs = `${randomInt(400, 900)}`;
    await repo.commit({ Dockerfile: `FROM ${IMAGES.v1.tag}\nRUN ["/bin/busybox", "sleep", "${secs}"]\n` });
    const a = worker("A", logs);
    await waitFor("A to lead", async () => (a.isLeader() ? true : undefined), { timeoutMs: 30_000 });
    const b0 = await s.db.transaction(async (tx) => {
      const q = await enqueueBuild(tx, { orgId: s.ctx.orgId, serviceId, commit: null, ref: "main", trigger: "manual", createdBy: "test", deploy: false });
      await notifyDesired(tx, buildKey(q.id));
      return q;
    });
    await waitFor("A's build to sleep on the engine", async () => ((await processRunning(`/bin/busybox sleep ${secs}`)) ? true : undefined), { timeoutMs: 60_000 });
    const runnerA = await heartbeatRunner();
    expect((await row(b0.id)).runner).toBe(runnerA);

    const b = worker("B", logs);
    await new Promise((r) => setTimeout(r, 500)); // B stands by
    expect(b.isLeader()).toBe(false);
    await s.sql`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`;

    await waitFor("A's build step to be stopped on the engine", async () => ((await processRunning(`/bin/busybox sleep ${secs}`)) ? undefined : true), { timeoutMs: 20_000 });
    await waitFor("B to lead", async () => (b.isLeader() ? true : undefined), { timeoutMs: 10_000 });
    const runnerB = await waitFor("B's heartbeat", async () => {
      const r = await heartbeatRunner();
      return r && r !== runnerA ? r : undefined;
    });
    const final = await waitFor("the build to be failed as interrupted", async () => {
      const r = await row(b0.id);
      return r.status === "failed" ? r : undefined;
    }, { timeoutMs: 30_000, describe: async () => `${JSON.stringify(await row(b0.id))}; ${logs.filter((l) => /build|lead|refused/i.test(l)).slice(-15).join(" | ")}` });
    expect(final.message).toMatch(/^interrupted/);
    expect(a.isLeader()).toBe(false);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await row(b0.id)).toEqual(final);
    console.log(`[buildfence] writes of A refused by the fence on their own: ${logs.filter((l) => l.startsWith("A ") && l.includes("no longer leads")).length}`);

    // Deterministically: A's stores (fenced by A's token) write nothing over B's outcome. Both
    // workers stop first (nothing else picks up the build queued below); the row still names B.
    await a.stop();
    await b.stop();
    expect(await heartbeatRunner()).toBe(runnerB);
    const fenceA = { shortName: s.shortName, runner: runnerA };
    const storeA = pgBuildStore(s.db, s.kit.keyring, fenceA);
    const logBefore = await logOf(b0.id);
    const [src0] = await s.db.select().from(gitSource).where(eq(gitSource.id, sourceId));
    await expect(storeA.updateBuild(b0.id, { status: "succeeded", message: "A's late outcome" })).rejects.toThrow(LostLeadError);
    await expect(storeA.appendLog(b0.id, 10_000, ["A's late line"])).rejects.toThrow(LostLeadError);
    await expect(storeA.clearLog(b0.id)).rejects.toThrow(LostLeadError);
    await expect(storeA.sourceSeen(sourceId, { error: "A's late error", commit: "0".repeat(40) })).rejects.toThrow(LostLeadError);
    const queued = await s.db.transaction((tx) => enqueueBuild(tx, { orgId: s.ctx.orgId, serviceId, commit: "1".repeat(40), ref: "main", trigger: "manual", createdBy: "test", deploy: false }));
    await expect(storeA.startBuild(queued.id, runnerA, new Date(), "fetching main")).rejects.toThrow(LostLeadError);
    await expect(pgPollStore(s.db, fenceA).enqueue({ orgId: s.ctx.orgId, serviceId, ref: "main" }, "2".repeat(40))).rejects.toThrow(LostLeadError);
    expect(await row(b0.id)).toEqual(final);
    expect(await logOf(b0.id)).toEqual(logBefore);
    expect((await s.db.select().from(gitSource).where(eq(gitSource.id, sourceId)))[0]).toEqual(src0);
    expect((await row(queued.id)).status).toBe("queued");
    expect(await s.db.select().from(build).where(eq(build.commit, "2".repeat(40)))).toHaveLength(0);

    // B's own writes land; and a fence whose lead's signal aborted refuses even while the row still names it.
    const storeB = pgBuildStore(s.db, s.kit.keyring, { shortName: s.shortName, runner: runnerB });
    await expect(storeB.appendLog(b0.id, 10_000, ["B writes"])).resolves.toBeUndefined();
    expect((await logOf(b0.id)).at(-1)).toBe("B writes");
    const aborted = new AbortController();
    aborted.abort();
    await expect(pgBuildStore(s.db, s.kit.keyring, { shortName: s.shortName, runner: runnerB, signal: aborted.signal }).updateBuild(b0.id, { message: "after the abort" })).rejects.toThrow(LostLeadError);
    await s.db.update(build).set({ status: "cancelled" }).where(eq(build.id, queued.id));
  }, 240_000);
});
