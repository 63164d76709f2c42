/**
 * Zero-downtime cutovers through Caddy, measured in one run on one engine.
 *
 * load:     8 loops of GET requests through a real Caddy (the product's route:
 *           domain → SRV look-up in the data plane) on keep-alive connections.
 * cutovers: 20 consecutive deploys alternating v1/v2 under that load, each from
 *           the deploy verb until the old container has drained and is gone, each
 *           followed by the engine's work of one with no switch (a container of the
 *           same image started on the app's network, kept 1 s, removed).
 * baseline: the same load with no deploy running (10 s before the cutovers, 10 s after).
 * The load runs on a thread of its own, so the worker's work does not delay its clock.
 *
 * Prints the failed requests during the cutovers (must be 0) and the p99 latency through Caddy
 * during cutovers and during the engine's work against the idle p99: once with the load back to back
 * (saturating the host's CPUs), once paced at BENCH_PACED_RATE requests a second.
 */
import { createApp } from "@levelrail/services/app/app";
import { deployService, listReleases } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { startCaddy } from "@levelrail/testkit/caddy";
import { type TestImage, ensureTestImage } from "@levelrail/testkit/images";
import { type CpuReading, cpuSpent, readCpu } from "@levelrail/testkit/cpu";
import { type RunningLoad, type Sample, percentile, startLoad } from "@levelrail/testkit/load";
import { startLoadThread } from "@levelrail/testkit/load-thread";
import { freePort } from "@levelrail/testkit/registry";
import { instanceFilter } from "@levelrail/spec/naming";
import { IMAGES, setupSuite } from "@levelrail/worker/harness";

const CUTOVERS = Number(process.env.BENCH_CUTOVERS ?? 20);
const IDLE_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 20) * 1000;
const CONCURRENCY = 8;
/** The paced run's rate: about half of what this 2-core host answers back to back (~1,100 a second). */
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 500);
/**
 * BENCH_APP=keepalive: the app is Caddy's file server (HTTP/1.1 keep-alive, as most real apps are)
 * instead of busybox httpd, which closes its connection after every answer: the ingress then opens
 * (and looks up) a connection per request, and each removal purges its thousands of connections
 * from the kernel's tracking table.
 */
const KEEPALIVE = process.env.BENCH_APP === "keepalive";
const images: TestImage[] = KEEPALIVE ? keepAliveImages(["v1", "v2"]) : [IMAGES.v1, IMAGES.v2];

/** Images FROM scratch with the host's Caddy binary and the libraries it links (ldd), serving /www on 8080. */
function keepAliveImages(versions: string[]): TestImage[] {
  const caddyBin = "/usr/bin/caddy";
  const libs = [...execFileSync("ldd", [caddyBin], { encoding: "utf8" }).matchAll(/(\/\S+\.so[.\d]*)/g)].map((m) => m[1]!);
  const files: NonNullable<TestImage["files"]> = { [caddyBin]: { content: readFileSync(caddyBin), mode: 0o755 } };
  for (const lib of new Set(libs)) files[lib] = { content: readFileSync(lib), mode: 0o755 };
  return versions.map((version) => ({
    tag: `levelrail-test/web-keepalive:${version}`,
    body: `${version}\n`,
    healthy: true,
    files,
    cmd: ["/bin/busybox", "env", "HOME=/tmp", caddyBin, "file-server", "--listen", ":8080", "--root", "/www"],
  }));
}

// The mesh DNS replicas run in processes of their own, as in production (BENCH_DATAPLANE_IN_PROCESS=1:
// on this process's event loop, beside the worker, as an earlier bench ran them).
const DATAPLANE_IN_PROCESS = process.env.BENCH_DATAPLANE_IN_PROCESS === "1";
const s = await setupSuite("bench_cutover", { dataPlane: DATAPLANE_IN_PROCESS ? "in-process" : "processes" });
const { ctx, shortName } = s;
for (const img of images) await ensureTestImage(s.runtime.docker, img);
await createApp({ ctx, envId: ctx.envId, input: { name: "bench" } });
const caddy = await startCaddy();
const ingressPort = await freePort();
const domain = `cutover-${shortName}.localhost`;
await s.startWorker({
  drainMs: 1000,
  probeIntervalMs: 100,
  ingress: { caddyAdmin: caddy.adminUrl, httpPort: ingressPort, httpsPort: null },
});

// The load runs on its own thread: sharing the worker's event loop added the worker's own busy
// moments during a cutover to the latencies it measured. BENCH_LOAD_IN_PROCESS=1 measures the old way.
const IN_PROCESS = process.env.BENCH_LOAD_IN_PROCESS === "1";
const load = (maxMs: number, ratePerSecond?: number): RunningLoad =>
  (IN_PROCESS ? startLoad : startLoadThread)({ url: `http://127.0.0.1:${ingressPort}/`, host: domain, concurrency: CONCURRENCY, maxRequests: 5_000_000, maxMs, ...(ratePerSecond ? { ratePerSecond } : {}) });
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

/**
 * Deploy verb → new container ready, the mesh name switched, the old one drained and removed.
 * Returns when the cutover ended on this process's clock (performance.now): when the worker wrote the
 * service running, after the old container's removal (the status row's updatedAt), not when this
 * poll saw it. The poll is slow (250 ms): polling every 20 ms, as the bench did, cost the host's two
 * cores about 50 queries a second during the cutovers that the engine-work run did not pay.
 */
async function cutover(service: string, image: string): Promise<number> {
  const rel = await deployService({ ctx, envId: ctx.envId, name: service, input: { image } });
  const st = await s.waitRelease(service, rel.id, { intervalMs: 250 });
  const wroteAt = st.updatedAt ? Date.parse(st.updatedAt) : Date.now();
  return performance.now() - Math.max(0, Date.now() - wroteAt);
}

const cpuLabel = (pid: number, name: string) => (pid === process.pid ? "bench process (worker, load thread)" : DATAPLANE_IN_PROCESS || name !== "node" ? name : "node (data plane replicas)");

/** The CPU the host's processes spend in the windows `time` runs, summed by process: ms a second over all of them. */
function cpuTally() {
  const sums = new Map<string, number>();
  let seconds = 0;
  return {
    async time<T>(fn: () => Promise<T>): Promise<T> {
      const before: CpuReading = readCpu();
      const started = performance.now();
      const result = await fn();
      seconds += (performance.now() - started) / 1000;
      for (const [k, ms] of cpuSpent(before, readCpu(), cpuLabel)) sums.set(k, (sums.get(k) ?? 0) + ms);
      return result;
    },
    perSecond(): [string, number][] {
      return [...sums].map(([k, ms]): [string, number] => [k, ms / Math.max(seconds, 0.001)]).sort((x, y) => y[1] - x[1]);
    },
  };
}

/** `name 812, other 40` (ms of CPU per second), the largest eight. */
const cpuLine = (spent: [string, number][]) =>
  spent
    .slice(0, 8)
    .map(([k, ms]) => `${k} ${Math.round(ms)}`)
    .join(", ");

type Window = { from: number; to: number };

/**
 * The engine's work of a cutover with no switch: a container of the same image created on the app's
 * network (its endpoint and embedded DNS are part of the cost) but no service's, started, left a
 * second (a cutover's drain) and removed.
 */
async function engineWork(appNetwork: string, name: string, image: string): Promise<number> {
  const c = await s.runtime.docker.createContainer({ Image: image, name, HostConfig: { NetworkMode: appNetwork } });
  await c.start();
  await new Promise((r) => setTimeout(r, 1000));
  await c.remove({ force: true });
  return performance.now();
}

/**
 * Idle, then under one load the cutovers each followed by the same engine work with no switch
 * (alternating, so both meet the same host), then idle again: the load `rate` requests a second
 * (paced), or back to back.
 */
async function measure(service: string, appNetwork: string, first: number, rate?: number) {
  // Baseline: the same load with nothing deploying, half before and half after (so drift in the host's load evens out).
  const idleCpu = cpuTally();
  const idleRun = () =>
    idleCpu.time(async () => {
      const idle = load(IDLE_MS / 2, rate);
      await new Promise((r) => setTimeout(r, IDLE_MS / 2 + 100));
      return idle.stop();
    });
  const idleBefore = await idleRun();

  const cutovers: Window[] = [];
  const engine: Window[] = [];
  const cutoverCpu = cpuTally();
  const engineCpu = cpuTally();
  const busy = load(CUTOVERS * 180_000, rate);
  await busy.successes(100);
  for (let i = 0; i < CUTOVERS; i++) {
    const image = images[(first + i + 1) % 2]!.tag;
    let from = performance.now();
    cutovers.push({ from, to: await cutoverCpu.time(() => cutover(service, image)) });
    from = performance.now();
    engine.push({ from, to: await engineCpu.time(() => engineWork(appNetwork, `${shortName}-bench-noise-${first + i}`, image)) });
  }
  await busy.successes(100);
  const busyResult = await busy.stop();
  const idleAfter = await idleRun();
  if (busyResult.hitBound) throw new Error("the load hit its bound before the cutovers finished");
  const idle = { failed: idleBefore.failed + idleAfter.failed, total: idleBefore.total + idleAfter.total, samples: [...idleBefore.samples, ...idleAfter.samples] };
  const idleP99 = percentile(idle.samples.filter((x) => x.ok).map((x) => x.ms), 99);
  const inside = (ws: Window[]) => busyResult.samples.filter((x) => ws.some((w) => x.at >= w.from && x.at <= w.to));
  const p99 = (ws: Window[]) => percentile(inside(ws).filter((x) => x.ok).map((x) => x.ms), 99);
  return {
    cutovers,
    idle,
    busy: busyResult,
    idleRate: idle.total / (IDLE_MS / 1000),
    idleP99,
    cutoverP99: p99(cutovers),
    engineP99: p99(engine),
    inCutovers: inside(cutovers).length,
    inEngine: inside(engine).length,
    failedInCutovers: inside(cutovers).filter((x) => !x.ok).length,
    failedInEngine: inside(engine).filter((x) => !x.ok).length,
    cpu: { idle: idleCpu.perSecond(), cutovers: cutoverCpu.perSecond(), engine: engineCpu.perSecond() },
    slow: { cutovers: slowRequests(busyResult.samples, cutovers, 4 * idleP99), engine: slowRequests(busyResult.samples, engine, 4 * idleP99) },
  };
}

/** Where in its window each request slower than `limit` was sent: ms from the window's start, ms before its end. */
function slowRequests(samples: Sample[], windows: Window[], limit: number) {
  return samples
    .filter((x) => x.ok && x.ms > limit)
    .flatMap((x) => windows.filter((w) => x.at >= w.from && x.at <= w.to).map((w) => ({ ms: x.ms, fromStart: x.at - w.from, beforeEnd: w.to - x.at })));
}

/** `4: 12 (median 20.1 ms, max 31.0 ms), by ms from the window's start … by ms before its end …` */
function slowLine(slow: ReturnType<typeof slowRequests>): string {
  const bucket = (ms: number) => `${Math.floor(ms / 250) * 250}`;
  const count = (xs: string[]) =>
    Object.entries(xs.reduce<Record<string, number>>((m, k) => ((m[k] = (m[k] ?? 0) + 1), m), {}))
      .sort((a, b) => Number(a[0]) - Number(b[0]))
      .map(([k, n]) => `${k}:${n}`)
      .join(" ");
  const ms = slow.map((x) => x.ms).sort((a, b) => a - b);
  const sizes = ms.length ? ` (median ${fmt(percentile(ms, 50))}, max ${fmt(ms.at(-1)!)})` : "";
  return `${slow.length}${sizes}, by ms from the window's start (250 ms buckets) ${count(slow.map((x) => bucket(x.fromStart)))}; by ms before its end ${count(slow.map((x) => bucket(x.beforeEnd)))}`;
}

try {
  const service = "bench-web";
  await createService({ ctx, envId: ctx.envId, input: { name: service, app: "bench", image: images[0]!.tag, port: 8080, healthPath: "/healthz", domains: [domain] } });
  await cutover(service, images[0]!.tag);
  const [appNetwork] = (await s.runtime.listNetworks(instanceFilter(shortName))).map((n) => n.name);
  if (!appNetwork) throw new Error("the app's network is missing after its first deploy");
  const warm = load(60_000);
  await warm.successes(200);
  await warm.stop();

  const saturated = await measure(service, appNetwork, 0);
  // The same, with the load paced below what the host answers back to back: the host has CPU to
  // spare, as a production edge does, and the ratio shows what a cutover adds rather than what the
  // engine's CPU takes from a saturated 2-core host.
  const paced = await measure(service, appNetwork, CUTOVERS, PACED_RATE);
  const [latest] = await listReleases({ ctx, envId: ctx.envId, name: service });

  const seconds = saturated.cutovers.map((w) => (w.to - w.from) / 1000);
  console.log(`app: ${KEEPALIVE ? "Caddy's file server (keep-alive)" : "busybox httpd (a connection per request)"}`);
  console.log(
    `cutovers: ${seconds.length} deploys alternating v1/v2 (last release ${latest?.outcome}), ${(seconds.reduce((a, b) => a + b, 0) / seconds.length).toFixed(1)} s each on average (drain 1 s), each followed by the engine's work of one with no switch (a container started, kept 1 s, removed)`,
  );
  for (const [label, run] of [
    ["back to back", saturated],
    [`paced at ${PACED_RATE}/s (latency from each request's scheduled moment)`, paced],
  ] as const) {
    const sfx = run === paced ? ` at ${PACED_RATE}/s` : "";
    console.log(`== ${label}`);
    console.log(`${run === paced ? "paced " : ""}cutover failures: ${run.failedInCutovers} of ${run.inCutovers} (during the engine work: ${run.failedInEngine} of ${run.inEngine}; the whole load: ${run.busy.failed} of ${run.busy.total}; idle: ${run.idle.failed} of ${run.idle.total})`);
    if (run.busy.failed > 0) console.log(`first failures:\n  ${run.busy.failures.join("\n  ")}`);
    console.log(`p99 through Caddy${sfx}, idle: ${fmt(run.idleP99)} (${run.idle.samples.length} requests, ${Math.round(run.idleRate)} a second)`);
    console.log(`p99 through Caddy${sfx}, during cutovers: ${fmt(run.cutoverP99)} (${run.inCutovers} requests)`);
    console.log(`p99 through Caddy${sfx}, while the engine starts and removes a container (no switch): ${fmt(run.engineP99)} (${run.inEngine} requests)`);
    console.log(`p99 cutover/idle ratio${sfx}: ${(run.cutoverP99 / run.idleP99).toFixed(2)}`);
    console.log(`p99 engine-work/idle ratio${sfx}: ${(run.engineP99 / run.idleP99).toFixed(2)}`);
    console.log(`p99 cutover/engine-work ratio${sfx} (what a cutover adds to the engine's own work): ${(run.cutoverP99 / run.engineP99).toFixed(2)}`);
    console.log(`cpu ms a second by process${sfx}, idle: ${cpuLine(run.cpu.idle)}`);
    console.log(`cpu ms a second by process${sfx}, during cutovers: ${cpuLine(run.cpu.cutovers)}`);
    console.log(`cpu ms a second by process${sfx}, during the engine work: ${cpuLine(run.cpu.engine)}`);
    console.log(`slow requests (over 4× idle p99)${sfx} during cutovers: ${slowLine(run.slow.cutovers)}`);
    console.log(`slow requests (over 4× idle p99)${sfx} during the engine work: ${slowLine(run.slow.engine)}`);
  }
  if (saturated.busy.failed > 0 || saturated.idle.failed > 0 || paced.busy.failed > 0 || paced.idle.failed > 0) process.exitCode = 1;
} finally {
  await s.teardown();
  await caddy.stop();
}
