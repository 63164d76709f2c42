/**
 * The database controller (issue 21): how soon a managed database's status shows that its server
 * died, and how many situations its plan's tables cover.
 *
 * - crash noticed: a running database (the PostgreSQL test image) through the worker in this
 *   process, with no timed resync during the measure (so nothing but the engine's events can tell
 *   it); `kill -9` of the server container's main process (its host pid from inspect), then the time
 *   until the database's status (read through the service layer, as the API does) leaves `running`.
 *   Rounds: `BENCH_DB_ROUNDS` (5), each after the database is running again. Baseline in the same
 *   run: when the engine itself reported the death (its `die` event, watched from here). Goal: under
 *   2,000 ms.
 * - plan cases: the rows of the plan's tables (`plan.cases.ts`, which `plan.test.ts` runs), counted.
 *
 * Prints `database crash noticed: <ms>` (the median) and `database plan cases: <n>`.
 */
import { getDatabase } from "@levelrail/services/database/view";
import { createDatabase } from "@levelrail/services/database/write";
import { DatabaseRoles, Labels, databaseFilter, instanceFilter } from "@levelrail/spec/naming";
import { POSTGRES_TEST_IMAGE, ensurePostgresImage } from "@levelrail/testkit/postgres-image";
import { waitFor } from "@levelrail/testkit/wait";
import { planCaseCount } from "@levelrail/worker/database-plan-cases";
import { setupSuite } from "@levelrail/worker/harness";

const ROUNDS = Number(process.env.BENCH_DB_ROUNDS ?? 5);
const GOAL_MS = 2000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

console.log(`database plan cases: ${planCaseCount()}`);

const s = await setupSuite("benchdb");
const { runtime, ctx } = s;
try {
  await ensurePostgresImage(runtime.docker);
  // No timed resync: only an engine event can wake the database's key during the measure.
  await s.startWorker({ resyncMs: 3_600_000 });
  const created = await createDatabase({ ctx, envId: ctx.envId, input: { name: "crashdb", version: "15", image: POSTGRES_TEST_IMAGE } });
  const view = () => getDatabase({ ctx, envId: ctx.envId, name: "crashdb" });
  const running = async (what: string) => {
    await waitFor(what, async () => ((await view()).phase === "running" ? true : undefined), { timeoutMs: 180_000, intervalMs: 50, describe: async () => JSON.stringify(await view()) });
    const [c] = (await runtime.listContainers(databaseFilter(s.shortName, created.id))).filter((x) => x.labels[Labels.role] === DatabaseRoles.database && x.state === "running");
    if (!c) throw new Error("no running server");
    return c;
  };
  let died = 0;
  const unwatch = runtime.watchContainers(databaseFilter(s.shortName, created.id), (e) => {
    if (e.action === "die" && died === 0) died = performance.now();
  });

  const noticed: number[] = [];
  const engine: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const server = await running(i === 0 ? "the database to run" : `the database to run again (round ${i})`);
    const pid = (await runtime.docker.getContainer(server.id).inspect()).State.Pid;
    if (!pid) throw new Error("the server has no host pid");
    died = 0;
    const t0 = performance.now();
    process.kill(pid, "SIGKILL");
    const shown = await waitFor("the status to show the crash", async () => {
      const d = await view();
      return d.phase !== "running" ? d : undefined;
    }, { timeoutMs: 60_000, intervalMs: 5 });
    const ms = performance.now() - t0;
    noticed.push(ms);
    engine.push(died > 0 ? died - t0 : Number.NaN);
    console.log(`  round ${i + 1}: status ${shown.phase} after ${ms.toFixed(0)} ms ("${shown.message}"); the engine's die event after ${(died - t0).toFixed(0)} ms`);
  }
  await running("the database to run again at the end");
  unwatch();
  const m = median(noticed);
  const base = median(engine.filter((x) => !Number.isNaN(x)));
  console.log(`database crash noticed: ${m.toFixed(0)}`);
  console.log(`  median of ${ROUNDS} kill -9 rounds (max ${Math.max(...noticed).toFixed(0)} ms); the engine's own die event: ${base.toFixed(0)} ms, ratio ${(m / Math.max(1, base)).toFixed(1)}; goal < ${GOAL_MS} ms: ${m < GOAL_MS ? "met" : "NOT met"}`);
} finally {
  await s.teardown();
  for (const v of await runtime.listVolumes(instanceFilter(s.shortName))) await runtime.removeVolume(v.name).catch(() => {});
}
