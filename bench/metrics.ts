/**
 * The cost of container metrics (issue 14): 100 services deployed through the worker (the busybox
 * httpd test image), then the worker's own sampler rounds (a one-shot stats read of each active
 * container, 8 at a time, one insert of the samples, the retention delete), called back to back.
 *
 * - sampling cost: CPU time of this process (user + system, `process.cpuUsage()`) per round, over the
 *   worker's default interval (10 s): the share of one core sampling takes. The worker runs inside
 *   this process and is idle meanwhile (no resync, no deploy), so this is an upper bound of the
 *   sampler's own. Target: under 5%; the ratio printed is against that target.
 * - round time: wall time of one round (it must stay well under the interval).
 */
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { IMAGES, setupSuite } from "@levelrail/worker/harness";
import { fleetTeardown, pool } from "./fleet";

const SERVICES = Number(process.env.BENCH_SERVICES ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const INTERVAL_MS = 10_000;
const TARGET_PERCENT = 5;
const PER_APP = 50;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const s = await setupSuite("metrics-bench");
const { ctx, sql } = s;
const cleanup = fleetTeardown(s);

// No timed resync and no timed sampling during the measure: the bench calls the rounds.
const worker = await s.startWorker({ resyncMs: 3_600_000, drainMs: 0, containerMetrics: { intervalMs: 3_600_000 } });

async function runningCount(): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from service_status st join service sv on sv.id = st.service_id
    where sv.org_id = ${ctx.orgId} and st.phase = 'running' and st.active_container is not null`;
  return row?.n ?? 0;
}

try {
  const t0 = performance.now();
  const apps = Array.from({ length: Math.ceil(SERVICES / PER_APP) }, (_, i) => `app${i}`);
  for (const name of apps) await createApp({ ctx, envId: ctx.envId, input: { name } });
  const names = Array.from({ length: SERVICES }, (_, i) => `svc${String(i).padStart(3, "0")}`);
  await pool(names, 4, async (name) => {
    const app = apps[Number(name.slice(3)) % apps.length]!;
    await createService({ ctx, envId: ctx.envId, input: { name, app, image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    await deployService({ ctx, envId: ctx.envId, name, input: {} });
  });
  const deadline = Date.now() + 10 * 60_000;
  while ((await runningCount()) < SERVICES) {
    if (Date.now() > deadline) throw new Error(`only ${await runningCount()} of ${SERVICES} services running after 10 min`);
    await sleep(1000);
  }
  await worker.application.idle();
  console.error(`${SERVICES} services running in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  // Two rounds first: each container's first reading only starts its CPU counter (and its limit is looked up once).
  for (let i = 0; i < 2; i++) await worker.sampler.round();
  const cpu: number[] = [];
  const wall: number[] = [];
  let sampled = 0;
  for (let i = 0; i < ROUNDS; i++) {
    await sleep(1000);
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    sampled = (await worker.sampler.round()).length;
    wall.push(performance.now() - w0);
    const used = process.cpuUsage(c0);
    cpu.push((used.user + used.system) / 1000);
  }
  if (sampled !== SERVICES) throw new Error(`a round sampled ${sampled} of ${SERVICES} services`);
  const [stored] = await sql<{ n: number }[]>`select count(*)::int as n from container_metric`;
  const percent = (median(cpu) / INTERVAL_MS) * 100;
  console.log(`samples stored: ${stored?.n ?? 0} (${ROUNDS + 1} rounds of ${SERVICES})`);
  console.log(`cpu per round: ${median(cpu).toFixed(1)} ms (median of ${ROUNDS}; max ${Math.max(...cpu).toFixed(1)} ms)`);
  console.log(`round time: ${median(wall).toFixed(0)} ms (median; max ${Math.max(...wall).toFixed(0)} ms) for an interval of ${INTERVAL_MS / 1000} s`);
  console.log(`metrics sampling cost: ${percent.toFixed(2)}% of a core (${SERVICES} services)`);
  console.log(`ratio to the ${TARGET_PERCENT}% target: ${(percent / TARGET_PERCENT).toFixed(2)}`);
} finally {
  await cleanup();
}
