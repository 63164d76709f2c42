/**
 * Zero-downtime cutovers through Caddy, measured in one run on one engine.
 *
 * load:     8 loops of GET requests through a real Caddy (the product's route:
 *           domain → mesh name, dynamic A upstreams) on keep-alive connections.
 * cutovers: 20 consecutive deploys alternating v1/v2 under that load, each from
 *           the deploy verb until the old container has drained and is gone.
 * baseline: the same load with no deploy running (10 s before the cutovers, 10 s after).
 * The load runs on a thread of its own, so the worker's work does not delay its clock.
 *
 * Prints the failed requests during the cutovers (must be 0) and the p99
 * latency through Caddy during cutovers against the idle p99: once with the load back to back
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
/** The engine-work run's load: back to back by default; BENCH_NOISE_RATE paces it (to compare with the paced cutovers). */
const NOISE_RATE = process.env.BENCH_NOISE_RATE ? Number(process.env.BENCH_NOISE_RATE) : undefined;
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

/** The CPU the host's processes spend from now until `end()`, in ms per second, by process. */
function cpuWindow() {
  const before: CpuReading = readCpu();
  const started = performance.now();
  return {
    end(): [string, number][] {
      const seconds = (performance.now() - started) / 1000;
      const label = (pid: number, name: string) => (pid === process.pid ? "bench process (worker, load thread)" : DATAPLANE_IN_PROCESS || name !== "node" ? name : "node (data plane replicas)");
      return cpuSpent(before, readCpu(), label).map(([k, ms]) => [k, ms / seconds]);
    },
  };
}

/** `name 812, other 40` (ms of CPU per second), the largest eight. */
const cpuLine = (spent: [string, number][]) =>
  spent
    .slice(0, 8)
    .map(([k, ms]) => `${k} ${Math.round(ms)}`)
    .join(", ");

/** Idle, cutovers under load, idle again: the load `rate` requests a second (paced), or back to back. */
async function measure(service: string, first: number, rate?: number) {
  // Baseline: the same load with nothing deploying, half before and half after the cutovers (so drift in the host's load evens out).
  const idleRun = async () => {
    const idle = load(IDLE_MS / 2, rate);
    await new Promise((r) => setTimeout(r, IDLE_MS / 2 + 100));
    return idle.stop();
  };
  const idleCpu = cpuWindow();
  const idleBefore = await idleRun();
  const idleCpuSpent = idleCpu.end();

  // Cutovers under load.
  const windows: { from: number; to: number }[] = [];
  const busy = load(CUTOVERS * 120_000, rate);
  await busy.successes(100);
  const busyCpu = cpuWindow();
  for (let i = 0; i < CUTOVERS; i++) {
    const from = performance.now();
    const to = await cutover(service, images[(first + i + 1) % 2]!.tag);
    windows.push({ from, to });
  }
  const busyCpuSpent = busyCpu.end();
  await busy.successes(100);
  const busyResult = await busy.stop();
  const idleAfter = await idleRun();
  if (busyResult.hitBound) throw new Error("the load hit its bound before the cutovers finished");
  const idle = { failed: idleBefore.failed + idleAfter.failed, total: idleBefore.total + idleAfter.total, samples: [...idleBefore.samples, ...idleAfter.samples] };
  const during = (x: Sample) => windows.some((w) => x.at >= w.from && x.at <= w.to);
  return {
    windows,
    idleCpu: idleCpuSpent,
    busyCpu: busyCpuSpent,
    busy: busyResult,
    idle,
    idleRate: idle.total / (IDLE_MS / 1000),
    idleP99: percentile(idle.samples.filter((x) => x.ok).map((x) => x.ms), 99),
    cutoverP99: percentile(busyResult.samples.filter((x) => x.ok && during(x)).map((x) => x.ms), 99),
    inWindows: busyResult.samples.filter(during).length,
    slow: slowRequests(busyResult.samples, windows, 4 * percentile(idle.samples.filter((x) => x.ok).map((x) => x.ms), 99)),
  };
}

/** Where in its window each request slower than `limit` was sent: ms from the window's start, ms before its end. */
function slowRequests(samples: Sample[], windows: { from: number; to: number }[], limit: number) {
  return samples
    .filter((x) => x.ok && x.ms > limit)
    .flatMap((x) => windows.filter((w) => x.at >= w.from && x.at <= w.to).map((w) => ({ ms: x.ms, fromStart: x.at - w.from, beforeEnd: w.to - x.at })));
}

try {
  const service = "bench-web";
  await createService({ ctx, envId: ctx.envId, input: { name: service, app: "bench", image: images[0]!.tag, port: 8080, healthPath: "/healthz", domains: [domain] } });
  await cutover(service, images[0]!.tag);
  const warm = load(60_000);
  await warm.successes(200);
  await warm.stop();

  const saturated = await measure(service, 0);
  // The same, with the load paced below what the host answers back to back: the host has CPU to
  // spare, as a production edge does, and the ratio shows what a cutover adds rather than what the
  // engine's CPU takes from a saturated 2-core host.
  const paced = await measure(service, CUTOVERS, PACED_RATE);

  // The same engine work with no switch: a container of the same image created, started, left a
  // second (a cutover's drain) and removed, as often as the cutovers. What the host's 2 cores lose
  // to the engine starting a container, apart from anything the product does at a switch.
  const engineWindows: { from: number; to: number }[] = [];
  const [appNetwork] = (await s.runtime.listNetworks(instanceFilter(shortName))).map((n) => n.name);
  if (!appNetwork) throw new Error("the app's network is missing after its deploys");
  const noise = load(CUTOVERS * 60_000, NOISE_RATE);
  await noise.successes(100);
  const noiseCpuWindow = cpuWindow();
  for (let i = 0; i < CUTOVERS; i++) {
    const from = performance.now();
    // On the app's network, as a release's container is (its endpoint and embedded DNS are part of the cost), but no service's.
    const c = await s.runtime.docker.createContainer({ Image: images[i % 2]!.tag, name: `${shortName}-bench-noise-${i}`, HostConfig: { NetworkMode: appNetwork } });
    await c.start();
    await new Promise((r) => setTimeout(r, 1000));
    await c.remove({ force: true });
    engineWindows.push({ from, to: performance.now() });
  }
  const noiseCpu = noiseCpuWindow.end();
  const noiseResult = await noise.stop();
  const [latest] = await listReleases({ ctx, envId: ctx.envId, name: service });

  const { windows, busy: busyResult, idle: idleResult, idleP99, cutoverP99 } = saturated;
  const seconds = windows.map((w) => (w.to - w.from) / 1000);
  console.log(`app: ${KEEPALIVE ? "Caddy's file server (keep-alive)" : "busybox httpd (a connection per request)"}`);
  console.log(`cutovers: ${windows.length} deploys alternating v1/v2 (last release ${latest?.outcome}), ${(seconds.reduce((a, b) => a + b, 0) / seconds.length).toFixed(1)} s each on average (drain 1 s)`);
  console.log(`cutover failures: ${busyResult.failed} of ${busyResult.total}`);
  if (busyResult.failed > 0) console.log(`first failures:\n  ${busyResult.failures.join("\n  ")}`);
  console.log(`idle failures: ${idleResult.failed} of ${idleResult.total}`);
  console.log(`p99 through Caddy, idle: ${fmt(idleP99)} (${idleResult.samples.length} requests, ${Math.round(saturated.idleRate)} a second back to back)`);
  console.log(`p99 through Caddy, during cutovers: ${fmt(cutoverP99)} (${saturated.inWindows} requests)`);
  console.log(`p99 cutover/idle ratio: ${(cutoverP99 / idleP99).toFixed(2)}`);
  const inEngine = (x: Sample) => engineWindows.some((w) => x.at >= w.from && x.at <= w.to);
  const engineP99 = percentile(noiseResult.samples.filter((x) => x.ok && inEngine(x)).map((x) => x.ms), 99);
  console.log(`p99 through Caddy, while the engine starts and removes a container (no switch): ${fmt(engineP99)} (${noiseResult.samples.filter(inEngine).length} requests, ${noiseResult.failed} failed)`);
  console.log(`p99 engine-work/idle ratio: ${(engineP99 / idleP99).toFixed(2)}`);
  console.log(`cpu ms a second by process, back to back, idle: ${cpuLine(saturated.idleCpu)}`);
  console.log(`cpu ms a second by process, back to back, during cutovers: ${cpuLine(saturated.busyCpu)}`);
  console.log(`cpu ms a second by process, back to back, during the engine work: ${cpuLine(noiseCpu)}`);
  console.log(`paced load: ${PACED_RATE} requests a second, latency from each request's scheduled moment`);
  console.log(`paced cutover failures: ${paced.busy.failed} of ${paced.busy.total}`);
  console.log(`p99 through Caddy at ${PACED_RATE}/s, idle: ${fmt(paced.idleP99)}; during cutovers: ${fmt(paced.cutoverP99)} (${paced.inWindows} requests)`);
  console.log(`p99 cutover/idle ratio at ${PACED_RATE}/s: ${(paced.cutoverP99 / paced.idleP99).toFixed(2)}`);
  console.log(`cpu ms a second by process at ${PACED_RATE}/s, idle: ${cpuLine(paced.idleCpu)}`);
  console.log(`cpu ms a second by process at ${PACED_RATE}/s, during cutovers: ${cpuLine(paced.busyCpu)}`);
  const engineSlow = slowRequests(noiseResult.samples, engineWindows, 4 * idleP99);
  for (const [label, slow] of [["back to back", saturated.slow], [`at ${PACED_RATE}/s`, paced.slow], ["during the engine work (no switch), back to back", engineSlow]] as const) {
    const bucket = (ms: number) => `${Math.floor(ms / 250) * 250}`;
    const count = (xs: string[]) => Object.entries(xs.reduce<Record<string, number>>((m, k) => ((m[k] = (m[k] ?? 0) + 1), m), {})).sort((a, b) => Number(a[0]) - Number(b[0])).map(([k, n]) => `${k}:${n}`).join(" ");
    const ms = slow.map((x) => x.ms).sort((a, b) => a - b);
    const sizes = ms.length ? ` (median ${fmt(percentile(ms, 50))}, max ${fmt(ms.at(-1)!)})` : "";
    console.log(`slow requests (over 4× idle p99) ${label}: ${slow.length}${sizes}, by ms from the window's start (250 ms buckets) ${count(slow.map((x) => bucket(x.fromStart)))}; by ms before its end ${count(slow.map((x) => bucket(x.beforeEnd)))}`);
  }
  if (busyResult.failed > 0 || idleResult.failed > 0 || paced.busy.failed > 0 || paced.idle.failed > 0) process.exitCode = 1;
} finally {
  await s.teardown();
  await caddy.stop();
}
