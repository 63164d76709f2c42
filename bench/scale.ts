/**
 * The worker at fleet size (issue 9): 1,000 service records, 300 of them running real containers
 * (the busybox httpd test image), on whatever this machine is (2 cores where it was first run).
 *
 * - no-op pass: one full resync with nothing to do, until the runners are idle (median of 3);
 *   baseline: one listing of the whole fleet's containers, the least Docker work that sees it all.
 * - docker calls per pass: calls to the Runtime during that pass (a counting Proxy around the
 *   runtime the worker gets); baseline 1 (that one listing).
 * - worker rss: the worker as production runs it, in its own process (bench/worker-rss.ts: the
 *   bundle `npm start` runs), leading with the fleet up, once it has passed every service; and the
 *   bench process's own RSS (the worker inside it, with the suite's data plane and database pools).
 * - at 5,000 records (BENCH_SERVICES_LARGE, BENCH_RUNNING_LARGE running; 0: skipped): the fleet
 *   grown to that, the no-op pass and the worker's RSS again, and the growth from the first size.
 * - change to reconcile p99: patchService of one running service → the application runner's
 *   `start` of that service's key, with the fleet present.
 * - web figures (bench/web-figures.ts), with the same fleet, signed in as its operator: cold first
 *   loads of the dashboard and a service page, the framework's share, an open dashboard's traffic,
 *   and the first load of every other page.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
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
import { measureWorkerRss } from "./worker-rss";
import { webFigures } from "./web-figures";

const SERVICES = Number(process.env.BENCH_SERVICES ?? 1000);
const RUNNING = Number(process.env.BENCH_RUNNING ?? 300);
const APPS = 20; // 50 services and 15 containers per app network (a /26)
const BATCH = 50;
const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const WEB = process.env.BENCH_WEB !== "off";
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 60_000);
const SERVICES_LARGE = Number(process.env.BENCH_SERVICES_LARGE ?? 5000);
const RUNNING_LARGE = Number(process.env.BENCH_RUNNING_LARGE ?? 1000);
const PER_APP = 50;

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

// LEVELRAIL_SHORT_NAME (a shared engine): the fleet's containers and networks carry it; unset: a random one.
const s = await setupSuite("scale", { shortName: process.env.LEVELRAIL_SHORT_NAME });
const { sql } = s;
// The fleet's operator signs in with a password (the web figures): made as `levelrail admin create` does.
const who = { email: `scale-${randomBytes(4).toString("hex")}@bench.levelrail.local`, password: randomBytes(18).toString("base64url") };
const operator = await createOperator(createAuth({ db: s.db, masterKey: Buffer.from(s.kit.masterKey, "base64"), baseURL: "http://127.0.0.1", trustedOrigins: [] }), who.email, who.password);
const { org, environment } = await bootstrapOrg(s.db, operator.id, `scale-${randomBytes(3).toString("hex")}`);
const ctx = { db: s.db, actor: await actorFor(s.db, operator.id, operator.email), kit: s.kit, envId: environment!.id };
// A fleet beyond the default quotas (200 services): raised for this organization, as the administrator would.
const totalApps = Math.max(APPS, Math.ceil(SERVICES_LARGE / PER_APP));
await setOrgQuotas(s.db, org.id, { apps: totalApps, services: Math.max(SERVICES, SERVICES_LARGE) }, undefined);
const counted = countingRuntime(s.runtime);
const cleanup = fleetTeardown(s);

/** SQL statements while `counting` is on, by verb and first table (postgres.js calls `debug` for each). */
const queries = new Map<string, number>();
(s.sql.options as { debug?: unknown }).debug = (_conn: number, text: string) => {
  if (!counted.state.counting) return;
  const m = /^\s*(select|insert into|update|delete from|with)\b[\s\S]*?(?:from|into|update)?\s*"(\w+)"/i.exec(text);
  const kind = m ? `${m[1]!.toLowerCase()} ${m[2]}` : text.slice(0, 24);
  queries.set(kind, (queries.get(kind) ?? 0) + 1);
};
/** Application passes while `counting` is on: how many, and their summed wall time. */
const passStats = { n: 0, ms: 0 };

let waiting: { key: string; t0: number; resolve: (ms: number) => void } | null = null;
const startWorker = () => s.startWorker({
  runtime: counted.runtime,
  resyncMs: 60 * 60_000, // no timed resync during the measures; the bench calls it
  drainMs: 0,
  probeIntervalMs: 100,
  onEvent: (e) => {
    if (e.type === "done" && counted.state.counting) {
      passStats.n += 1;
      passStats.ms += e.ms;
    }
    if (e.type === "start" && waiting && e.key === waiting.key) {
      waiting.resolve(performance.now() - waiting.t0);
      waiting = null;
    }
  },
});
let worker = await startWorker();
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

const ids = new Map<string, string>();
const nameOf = (i: number) => `svc${String(i).padStart(4, "0")}`;
const appOf = (i: number) => `app${String(i).padStart(2, "0")}`;

/** Services `from` … `to - 1` (made four at a time), spread over apps `appFrom` … `appTo - 1`. */
async function createFleet(from: number, to: number, appFrom: number, appTo: number): Promise<string[]> {
  const t0 = performance.now();
  for (let a = appFrom; a < appTo; a++) await createApp({ ctx, envId: ctx.envId, input: { name: appOf(a) } });
  const names = Array.from({ length: to - from }, (_, i) => nameOf(from + i));
  await pool(names, 4, async (name) => {
    const app = appOf(appFrom + (Number(name.slice(3)) % (appTo - appFrom)));
    const v = await createService({ ctx, envId: ctx.envId, input: { name, app, image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    ids.set(name, v.id);
  });
  console.error(`${to} services (${to - from} created in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return names;
}

/** Deploys `names` in batches, each waited for until `before` + the batch run. */
async function deployFleet(names: string[], before: number): Promise<void> {
  const t0 = performance.now();
  for (let i = 0; i < names.length; i += BATCH) {
    // Four at a time: a deploy's transaction reads fingerprints on a second connection, and the
    // suite's pool (10) is shared with the worker.
    await pool(names.slice(i, i + BATCH), 4, (name) => deployService({ ctx, envId: ctx.envId, name, input: {} }));
    const want = before + Math.min(i + BATCH, names.length);
    const deadline = Date.now() + 5 * 60_000;
    while ((await runningCount()) < want) {
      if (Date.now() > deadline) throw new Error(`only ${await runningCount()} of ${want} services running after 5 min`);
      await sleep(500);
    }
    console.error(`${want} running (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await idle();
  // Settle: one pass for every key (the undeployed ones get their "not deployed yet" status).
  await worker.resync();
  await idle();
}

interface Passes {
  pass: number;
  list: number;
  passes: number[];
  calls: number;
  byMethod: Map<string, number>;
  queries: Map<string, number>;
  keys: { n: number; ms: number };
}

/** Three no-op passes (median) against one listing of the fleet's containers; the last one's calls and SQL statements. */
async function measurePasses(running: number): Promise<Passes> {
  const lists: number[] = [];
  for (let i = 0; i < 3; i++) {
    const l0 = performance.now();
    const all = await s.runtime.listContainers(instanceFilter(s.shortName));
    lists.push(performance.now() - l0);
    const up = all.filter((c) => c.state === "running" && c.labels["levelrail.service"]).length;
    if (up !== running) throw new Error(`expected ${running} running containers, saw ${up}`);
  }
  const passes: number[] = [];
  const perPass: number[] = [];
  let byMethod = new Map<string, number>();
  for (let i = 0; i < 3; i++) {
    counted.calls.clear();
    queries.clear();
    passStats.n = 0;
    passStats.ms = 0;
    counted.state.counting = true;
    const p0 = performance.now();
    await worker.resync();
    await idle();
    passes.push(performance.now() - p0);
    counted.state.counting = false;
    perPass.push([...counted.calls.values()].reduce((a, b) => a + b, 0));
    byMethod = new Map(counted.calls);
  }
  return { pass: median(passes), list: median(lists), passes, calls: median(perPass), byMethod, queries: new Map(queries), keys: { ...passStats } };
}

function printPasses(label: string, services: number, running: number, m: Passes): void {
  console.log(`  ${label}: ${services} services, ${running} running containers; passes ${m.passes.map((x) => x.toFixed(0)).join(", ")} ms; calls by method: ${[...m.byMethod].map(([k, v]) => `${k} ${v}`).join(", ")}`);
  console.log(
    `  ${label}, last pass: ${m.keys.n} application passes, ${m.keys.ms.toFixed(0)} ms summed; SQL statements ${[...m.queries.values()].reduce((a, b) => a + b, 0)}: ` +
      [...m.queries].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(", "),
  );
}

/** The in-process worker stopped, the production one measured on the fleet as it is, the in-process one back. */
async function workerRss(services: number) {
  await s.stopWorker();
  try {
    return await measureWorkerRss({ databaseUrl: s.databaseUrl, shortName: s.shortName, masterKey: s.kit.masterKey, meshDnsPort: s.dataPlanePort, services, log: (l) => console.error(l) });
  } finally {
    worker = await startWorker();
    await idle();
  }
}

try {
  const names = await createFleet(0, SERVICES, 0, APPS);
  const deployed = names.slice(0, RUNNING);
  await deployFleet(deployed, 0);

  const rssMiB = process.memoryUsage().rss / 2 ** 20;
  const small = await measurePasses(RUNNING);
  // BENCH_CPU_PROFILE=<file>: one more no-op pass under the CPU profiler (not among the measured ones).
  if (process.env.BENCH_CPU_PROFILE) {
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    await worker.resync();
    await idle();
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(process.env.BENCH_CPU_PROFILE, JSON.stringify(profile));
    session.disconnect();
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

  const own = await workerRss(SERVICES);
  console.log(`no-op pass: ${small.pass.toFixed(0)} ms`);
  console.log(`docker calls per pass: ${small.calls}`);
  console.log(`worker rss: ${own.rssMiB.toFixed(0)} MiB`);
  console.log(`change to reconcile p99: ${percentile(changes, 99).toFixed(0)} ms`);
  printPasses("fleet", SERVICES, RUNNING, small);
  console.log(`  worker process: peak ${own.peakMiB.toFixed(0)} MiB, every service passed ${(own.settledMs / 1000).toFixed(1)} s after its start; the bench process (worker inside): ${rssMiB.toFixed(0)} MiB`);
  console.log(`  change to reconcile: median ${median(changes).toFixed(0)} ms, max ${Math.max(...changes).toFixed(0)} ms (n=${changes.length})`);
  console.log(`baseline (one listing of the fleet's containers): ${small.list.toFixed(0)} ms, 1 docker call`);
  console.log(`no-op pass over baseline: ${(small.pass / small.list).toFixed(1)}`);
  if (web) {
    console.log(`dashboard first load: ${web.dashboardKB.toFixed(0)} kB`);
    console.log(`service page first load: ${web.servicePageKB.toFixed(0)} kB`);
    console.log(`framework chunks: ${web.frameworkKB.toFixed(0)} kB`);
    console.log(`dashboard idle traffic: ${web.idleKBPerMin.toFixed(0)} kB/min`);
    for (const p of web.pages) console.log(`  first load ${p.route}: ${p.kB === null ? "not measured (nothing of the kind in the fleet; see bench/pages.ts)" : `${p.kB.toFixed(0)} kB`}`);
    console.log(`  web: cold cache, transferred bytes as DevTools counts them (1 kB = 1024 B), ${SERVICES} services on the dashboard, idle over ${IDLE_MS / 1000} s`);
  }

  if (SERVICES_LARGE > SERVICES) {
    // The fleet grown: more services in apps of their own, more of them running.
    const more = await createFleet(SERVICES, SERVICES_LARGE, APPS, totalApps);
    const running = Math.max(RUNNING, RUNNING_LARGE);
    const step = more.length / Math.max(1, running - RUNNING);
    await deployFleet(Array.from({ length: running - RUNNING }, (_, i) => more[Math.floor(i * step)]!), RUNNING);
    const large = await measurePasses(running);
    const big = await workerRss(SERVICES_LARGE);
    console.log(`no-op pass at ${SERVICES_LARGE} records: ${large.pass.toFixed(0)} ms`);
    console.log(`worker rss at ${SERVICES_LARGE} records: ${big.rssMiB.toFixed(0)} MiB`);
    console.log(`no-op pass growth ${SERVICES} → ${SERVICES_LARGE} records: ${(large.pass / small.pass).toFixed(2)}× (records ${(SERVICES_LARGE / SERVICES).toFixed(0)}×, running ${RUNNING} → ${running})`);
    printPasses(`fleet at ${SERVICES_LARGE}`, SERVICES_LARGE, running, large);
    console.log(`  worker process at ${SERVICES_LARGE}: peak ${big.peakMiB.toFixed(0)} MiB, every service passed ${(big.settledMs / 1000).toFixed(1)} s after its start`);
    console.log(`  baseline at ${SERVICES_LARGE}: ${large.list.toFixed(0)} ms; no-op pass over baseline ${(large.pass / large.list).toFixed(1)}`);
  }
} finally {
  await cleanup();
}
