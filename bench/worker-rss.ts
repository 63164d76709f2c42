/**
 * The worker measured as it runs in production: its own process, started as `npm start` starts it
 * (scripts/serve.mjs: the esbuild bundle apps/worker/dist/main.mjs under `node --enable-source-maps`),
 * leading the installation whose fleet is up. Its RSS is read from /proc once its passes are done
 * and while timed resyncs go on (every 5 s), and its peak (VmHWM) over the whole run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { freePort } from "@levelrail/testkit/registry";
import { waitFor } from "@levelrail/testkit/wait";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

interface BundleModule {
  BUNDLES: { worker: { entry: string; outfile: string } };
  bundle(b: { entry: string; outfile: string }): Promise<{ outfile: string; built: boolean }>;
  nodeArgs(outfile: string): string[];
}

export interface WorkerRss {
  /** Median RSS (MiB) over the window after its passes were done. */
  rssMiB: number;
  /** Its highest RSS (MiB) since it started (VmHWM). */
  peakMiB: number;
  /** How long it took from its start until every key had its pass and the queue was empty. */
  settledMs: number;
}

/** `VmRSS` and `VmHWM` of `pid`, in MiB. */
function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

/** The application controller's finished passes and queue depth, from the worker's Prometheus endpoint. */
async function progress(port: number): Promise<{ passes: number; depth: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  let passes = 0;
  let depth = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith('levelrail_reconciles_total{controller="application"')) passes += Number(line.split(" ").at(-1));
    if (line.startsWith('levelrail_queue_depth{controller="application"}')) depth = Number(line.split(" ").at(-1));
  }
  return { passes, depth };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the production worker on the suite's database and short name (no other worker may run),
 * waits until it has passed every one of `services` keys with nothing queued, samples its RSS for
 * `windowMs` (resyncs every 5 s meanwhile), then stops it.
 */
export async function measureWorkerRss(o: { databaseUrl: string; shortName: string; masterKey: string; meshDnsPort: number; services: number; windowMs?: number; log: (l: string) => void }): Promise<WorkerRss> {
  const { BUNDLES, bundle, nodeArgs } = (await import(pathToFileURL(join(repoRoot, "scripts", "lib", "bundle.mjs")).href)) as BundleModule;
  const { outfile } = await bundle(BUNDLES.worker);
  const dataDir = mkdtempSync(join(tmpdir(), "levelrail-scale-worker-"));
  const metricsPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: o.databaseUrl,
    LEVELRAIL_SHORT_NAME: o.shortName,
    LEVELRAIL_MASTER_KEY: o.masterKey,
    LEVELRAIL_DATA_DIR: dataDir,
    LEVELRAIL_MESH_DNS_PORT: String(o.meshDnsPort),
    LEVELRAIL_METRICS_PORT: String(metricsPort),
    LEVELRAIL_RESYNC_SECONDS: "5",
    LEVELRAIL_ALLOW_PRIVATE_TARGETS: "true",
  };
  const started = performance.now();
  // BENCH_HEAP_SNAPSHOT=<dir>: at the end of the window the worker prints its memory by kind and
  // writes a heap snapshot there (a preload's SIGUSR2 handler; the worker itself is unchanged).
  const snapshots = process.env.BENCH_HEAP_SNAPSHOT;
  let preload: string[] = [];
  if (snapshots) {
    const file = join(snapshots, "memory-preload.mjs");
    writeFileSync(
      file,
      `import v8 from "node:v8";\nprocess.on("SIGUSR2", () => {\n  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.space_used_size / 1048576)]));\n` +
        `  console.log("bench-memory " + JSON.stringify({ ...Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1048576)])), spaces }));\n` +
        `  v8.writeHeapSnapshot(${JSON.stringify(join(snapshots, "worker.heapsnapshot"))});\n  console.log("bench-heap-written");\n});\n`,
    );
    preload = ["--import", pathToFileURL(file).href];
  }
  const args = [...preload, ...nodeArgs(outfile)];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  for (const s of [child.stdout, child.stderr]) if (s) createInterface({ input: s }).on("line", (l) => lines.push(l));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const pid = child.pid!;
    await waitFor("the worker to lead", async () => lines.some((l) => l.startsWith("worker ready")) || undefined, {
      timeoutMs: 120_000,
      describe: async () => lines.slice(-20).join("\n"),
    });
    let settledMs = 0;
    await waitFor(
      `the worker to pass all ${o.services} services`,
      async () => {
        const p = await progress(metricsPort).catch(() => null);
        if (!p || p.passes < o.services || p.depth > 0) return undefined;
        settledMs = performance.now() - started;
        return true;
      },
      { timeoutMs: 600_000, intervalMs: 250, describe: async () => JSON.stringify(await progress(metricsPort).catch(() => null)) + "\n" + lines.slice(-10).join("\n") },
    );
    const samples: number[] = [];
    const until = performance.now() + (o.windowMs ?? 20_000);
    while (performance.now() < until) {
      samples.push(memory(pid).rss);
      await sleep(250);
    }
    const { hwm } = memory(pid);
    if (snapshots) {
      child.kill("SIGUSR2");
      await waitFor("the heap snapshot", async () => lines.some((l) => l === "bench-heap-written") || undefined, { timeoutMs: 300_000, intervalMs: 500 }).catch(() => {});
      o.log(`  worker process memory (MiB): ${lines.find((l) => l.startsWith("bench-memory "))?.slice(13) ?? "?"}`);
    }
    const errors = lines.filter((l) => / error|Error/.test(l));
    if (errors.length > 0) o.log(`  worker process: ${errors.length} error lines, first: ${errors[0]}`);
    return { rssMiB: median(samples), peakMiB: hwm, settledMs };
  } finally {
    child.kill("SIGTERM");
    await Promise.race([exited, sleep(15_000).then(() => child.kill("SIGKILL"))]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
