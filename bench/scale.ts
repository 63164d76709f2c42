/**
 * The worker at fleet size (issue 9): 1,000 service records, 300 of them running real containers
 * (the busybox httpd test image), on whatever this machine is (2 cores where it was first run).
 *
 * - no-op pass: one full resync with nothing to do, until the runners are idle (median of 3);
 *   baseline: one listing of the whole fleet's containers, the least Docker work that sees it all.
 * - docker calls per pass: calls to the Runtime during that pass (a counting Proxy around the
 *   runtime the worker gets); baseline 1 (that one listing).
 * - worker rss: the worker runs inside this process (setupSuite's startWorker, with the suite's
 *   data plane and database pools beside it), so this is the whole bench process's RSS with the
 *   fleet up: an upper bound of the worker's own.
 * - change to reconcile p99: patchService of one running service → the application runner's
 *   `start` of that service's key, with the fleet present.
 * - web figures (bench/web-figures.ts), with the same fleet, signed in as its operator: cold first
 *   loads of the dashboard and a service page, the framework's share, an open dashboard's traffic.
 */
import { randomBytes } from "node:crypto";
import { actorFor, createAuth, createOperator } from "@levelrail/auth";
import { createApp } from "@levelrail/services/app/app";
import { bootstrapOrg } from "@levelrail/services/org/create";
import { setOrgQuotas } from "@levelrail/services/org/quota";
import { deployService } from "@levelrail/services/release/deploy";
import { createService, patchService } from "@levelrail/services/service/write";
import type { Runtime } from "@levelrail/docker";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { instanceFilter } from "@levelrail/spec/naming";
import { IMAGES, setupSuite } from "@levelrail/worker/harness";
import { fleetTeardown, pool } from "./fleet";
import { webFigures } from "./web-figures";

const SERVICES = Number(process.env.BENCH_SERVICES ?? 1000);
const RUNNING = Number(process.env.BENCH_RUNNING ?? 300);
const APPS = 20; // 50 services and 15 containers per app network (a /26)
const BATCH = 50;
const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const WEB = process.env.BENCH_WEB !== "off";
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 60_000);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** Nearest-rank percentile. */
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The runtime the worker gets: every method call counted (by name) while `counting` is on. */
function countingRuntime(inner: Runtime) {
  const calls = new Map<string, number>();
  const state = { counting: false };
  const runtime = new Proxy(inner, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      const fn = v as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (state.counting) calls.set(String(prop), (calls.get(String(prop)) ?? 0) + 1);
        return fn.apply(target, args);
      };
    },
  });
  return { runtime, calls, state };
}

const s = await setupSuite("scale");
const { sql } = s;
// The fleet's operator signs in with a password (the web figures): made as `levelrail admin create` does.
const who = { email: `scale-${randomBytes(4).toString("hex")}@bench.levelrail.local`, password: randomBytes(18).toString("base64url") };
const operator = await createOperator(createAuth({ db: s.db, masterKey: Buffer.from(s.kit.masterKey, "base64"), baseURL: "http://127.0.0.1", trustedOrigins: [] }), who.email, who.password);
const { org, environment } = await bootstrapOrg(s.db, operator.id, `scale-${randomBytes(3).toString("hex")}`);
const ctx = { db: s.db, actor: await actorFor(s.db, operator.id, operator.email), kit: s.kit, envId: environment!.id };
// A fleet beyond the default quotas (200 services): raised for this organization, as the administrator would.
await setOrgQuotas(s.db, org.id, { apps: APPS, services: SERVICES }, undefined);
const counted = countingRuntime(s.runtime);
const cleanup = fleetTeardown(s);

let waiting: { key: string; t0: number; resolve: (ms: number) => void } | null = null;
const worker = await s.startWorker({
  runtime: counted.runtime,
  resyncMs: 60 * 60_000, // no timed resync during the measures; the bench calls it
  drainMs: 0,
  probeIntervalMs: 100,
  onEvent: (e) => {
    if (e.type === "start" && waiting && e.key === waiting.key) {
      waiting.resolve(performance.now() - waiting.t0);
      waiting = null;
    }
  },
});
const idle = () => Promise.all([worker.application.idle(), worker.networks.idle()]);

/** Services of this suite's organization whose current release succeeded and which run. */
async function runningCount(): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from service_status st
    join service s on s.id = st.service_id
    join release r on r.id = s.current_release_id
    where s.org_id = ${org.id} and st.phase = 'running' and r.outcome = 'succeeded'`;
  return row?.n ?? 0;
}

try {
  const t0 = performance.now();
  const apps = Array.from({ length: APPS }, (_, i) => `app${String(i).padStart(2, "0")}`);
  for (const name of apps) await createApp({ ctx, envId: ctx.envId, input: { name } });
  const names = Array.from({ length: SERVICES }, (_, i) => `svc${String(i).padStart(4, "0")}`);
  const ids = new Map<string, string>();
  await pool(names, 4, async (name) => {
    const app = apps[Number(name.slice(3)) % APPS]!;
    const v = await createService({ ctx, envId: ctx.envId, input: { name, app, image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    ids.set(name, v.id);
  });
  console.error(`${SERVICES} services created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const deployed = names.slice(0, RUNNING);
  for (let i = 0; i < deployed.length; i += BATCH) {
    // Four at a time: a deploy's transaction reads fingerprints on a second connection, and the
    // suite's pool (10) is shared with the worker.
    await pool(deployed.slice(i, i + BATCH), 4, (name) => deployService({ ctx, envId: ctx.envId, name, input: {} }));
    const want = Math.min(i + BATCH, deployed.length);
    const deadline = Date.now() + 5 * 60_000;
    while ((await runningCount()) < want) {
      if (Date.now() > deadline) throw new Error(`only ${await runningCount()} of ${want} services running after 5 min`);
      await sleep(500);
    }
    console.error(`${want}/${deployed.length} running (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await idle();
  // Settle: one pass for every key (the undeployed ones get their "not deployed yet" status).
  await worker.resync();
  await idle();

  const rssMiB = process.memoryUsage().rss / 2 ** 20;

  // Baseline: the whole fleet's containers in one listing.
  const lists: number[] = [];
  for (let i = 0; i < 3; i++) {
    const l0 = performance.now();
    const all = await s.runtime.listContainers(instanceFilter(s.shortName));
    lists.push(performance.now() - l0);
    if (all.filter((c) => c.state === "running").length !== RUNNING) throw new Error(`expected ${RUNNING} running containers, saw ${all.length}`);
  }

  const passes: number[] = [];
  const perPass: number[] = [];
  let lastCalls = new Map<string, number>();
  for (let i = 0; i < 3; i++) {
    counted.calls.clear();
    counted.state.counting = true;
    const p0 = performance.now();
    await worker.resync();
    await idle();
    passes.push(performance.now() - p0);
    counted.state.counting = false;
    perPass.push([...counted.calls.values()].reduce((a, b) => a + b, 0));
    lastCalls = new Map(counted.calls);
  }

  const changes: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const name = deployed[Math.floor(Math.random() * deployed.length)]!;
    const key = formatKey(serviceKey(ids.get(name)!));
    const started = new Promise<number>((resolve) => (waiting = { key, t0: performance.now(), resolve }));
    await patchService({ ctx, envId: ctx.envId, name, input: { readyBudgetSeconds: 60 + (i % 2) } });
    changes.push(await Promise.race([started, sleep(30_000).then(() => Number.NaN)]));
    waiting = null;
    await idle();
    await sleep(20 + Math.random() * 80);
  }
  if (changes.some(Number.isNaN)) throw new Error("a change was never reconciled (no start event within 30 s)");

  const web = WEB
    ? await webFigures({ databaseUrl: s.databaseUrl, masterKey: s.kit.masterKey, who, service: deployed[0]!, idleMs: IDLE_MS, log: (l) => console.error(l) })
    : null;

  const pass = median(passes);
  const list = median(lists);
  console.log(`no-op pass: ${pass.toFixed(0)} ms`);
  console.log(`docker calls per pass: ${median(perPass)}`);
  console.log(`worker rss: ${rssMiB.toFixed(0)} MiB`);
  console.log(`change to reconcile p99: ${percentile(changes, 99).toFixed(0)} ms`);
  console.log(
    `  fleet: ${SERVICES} services, ${RUNNING} running containers; passes ${passes.map((x) => x.toFixed(0)).join(", ")} ms; ` +
      `calls by method: ${[...lastCalls].map(([k, v]) => `${k} ${v}`).join(", ")}`,
  );
  console.log(`  change to reconcile: median ${median(changes).toFixed(0)} ms, max ${Math.max(...changes).toFixed(0)} ms (n=${changes.length})`);
  console.log(`baseline (one listing of the fleet's containers): ${list.toFixed(0)} ms, 1 docker call`);
  console.log(`no-op pass over baseline: ${(pass / list).toFixed(1)}`);
  if (web) {
    console.log(`dashboard first load: ${web.dashboardKB.toFixed(0)} kB`);
    console.log(`service page first load: ${web.servicePageKB.toFixed(0)} kB`);
    console.log(`framework chunks: ${web.frameworkKB.toFixed(0)} kB`);
    console.log(`dashboard idle traffic: ${web.idleKBPerMin.toFixed(0)} kB/min`);
    console.log(`  web: cold cache, transferred bytes as DevTools counts them (1 kB = 1024 B), ${SERVICES} services on the dashboard, idle over ${IDLE_MS / 1000} s`);
  }
} finally {
  await cleanup();
}
