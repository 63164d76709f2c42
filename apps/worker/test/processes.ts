import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { dockerRuntime } from "@levelrail/docker";
import { instanceFilter } from "@levelrail/spec/naming";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { freePort } from "@levelrail/testkit/registry";
import { testKit } from "@levelrail/testkit/seed";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** One line a worker printed, stamped when this process read it. */
export interface LogLine {
  at: number;
  line: string;
}

/** A real worker process (`node --import tsx apps/worker/src/main.ts`), its log kept line by line. */
export interface WorkerProcess {
  name: string;
  pid: number;
  /** Its Prometheus port: served only while it leads (the worker starts it). */
  metricsPort: number;
  lines: LogLine[];
  /** Resolves with the exit code (or signal name) once it is gone. */
  exited: Promise<string>;
  /** The first line (from index `from` on) matching `re`; rejects when the process exits first or after `timeoutMs`. */
  waitLine(re: RegExp, opts?: { from?: number; timeoutMs?: number }): Promise<LogLine>;
  /** `kill -9`; returns when the signal was sent (`Date.now()`, the clock log lines are stamped with). */
  kill9(): number;
  /** SIGTERM, then SIGKILL if it has not exited after 10 s. */
  stop(): Promise<void>;
}

function startProcess(name: string, env: NodeJS.ProcessEnv, metricsPort: number): WorkerProcess {
  const proc: ChildProcess = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: LogLine[] = [];
  const watchers = new Set<() => void>();
  let exitedAs: string | null = null;
  const exited = new Promise<string>((resolve) => {
    proc.once("exit", (code, signal) => {
      exitedAs = signal ?? String(code);
      for (const w of [...watchers]) w();
      resolve(exitedAs);
    });
  });
  for (const stream of [proc.stdout, proc.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on("line", (line) => {
      lines.push({ at: Date.now(), line });
      for (const w of [...watchers]) w();
    });
  }
  const tail = () => lines.slice(-15).map((l) => `  ${name}: ${l.line}`).join("\n");

  return {
    name,
    pid: proc.pid ?? -1,
    metricsPort,
    lines,
    exited,
    waitLine(re, { from = 0, timeoutMs = 60_000 } = {}) {
      return new Promise<LogLine>((resolve, reject) => {
        const done = (fn: () => void) => {
          watchers.delete(check);
          clearTimeout(timer);
          fn();
        };
        const check = () => {
          const hit = lines.slice(from).find((l) => re.test(l.line));
          if (hit) return done(() => resolve(hit));
          if (exitedAs !== null) done(() => reject(new Error(`worker ${name} exited (${exitedAs}) before logging ${re}; its last lines:\n${tail()}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`worker ${name} did not log ${re} within ${timeoutMs} ms; its last lines:\n${tail()}`))), timeoutMs);
        watchers.add(check);
        check();
      });
    },
    kill9() {
      const at = Date.now();
      proc.kill("SIGKILL");
      return at;
    },
    async stop() {
      if (exitedAs !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * One installation run as real processes: a fresh migrated database, a short name, a data dir
 * and a master key of its own; `spawn` starts another worker of it (each with its own metrics
 * port). No Caddy: the ingress address is a loopback port nobody listens on, so the ingress
 * controller only logs its retries. `teardown` stops the workers and removes what they made.
 */
export async function workerInstallation(label: string, opts: { resyncSeconds?: number } = {}) {
  const database = await freshDatabase(requireDatabaseUrl(), label);
  const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
  const shortName = `lrl${randomBytes(3).toString("hex")}`;
  const dataDir = mkdtempSync(join(tmpdir(), `levelrail-${label}-`));
  const kit = testKit();
  const meshDnsPort = await freePort();
  const nobody = await freePort();
  const workers: WorkerProcess[] = [];

  return {
    databaseUrl: database.url,
    runtime,
    shortName,
    dataDir,
    kit,
    workers,
    async spawn(name: string): Promise<WorkerProcess> {
      const metricsPort = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: database.url,
        LEVELRAIL_DATA_DIR: dataDir,
        LEVELRAIL_SHORT_NAME: shortName,
        LEVELRAIL_MASTER_KEY: kit.masterKey,
        LEVELRAIL_MESH_DNS_PORT: String(meshDnsPort),
        LEVELRAIL_METRICS_PORT: String(metricsPort),
        LEVELRAIL_CADDY_ADMIN: `http://127.0.0.1:${nobody}`,
        LEVELRAIL_RESYNC_SECONDS: String(opts.resyncSeconds ?? 30),
        LEVELRAIL_DRAIN_MS: "200",
        // The tests' S3 servers and receivers are on loopback (as the in-process harness allows).
        LEVELRAIL_ALLOW_PRIVATE_TARGETS: "true",
      };
      delete env.LEVELRAIL_PREVIOUS_MASTER_KEYS;
      const w = startProcess(name, env, metricsPort);
      workers.push(w);
      return w;
    },
    async teardown() {
      await Promise.all(workers.map((w) => w.stop()));
      for (const c of await runtime.listContainers(instanceFilter(shortName))) await runtime.removeContainer(c.id);
      for (const n of await runtime.listNetworks(instanceFilter(shortName))) await runtime.removeNetwork(n.name);
      rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    },
  };
}

/** Whether the worker's metrics port answers (it serves only while the worker leads). */
export async function servesMetrics(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(1000) }).then(
    (r) => r.ok,
    () => false,
  );
}

/** Sum of a counter's samples in a Prometheus text page whose labels include all of `labels`. */
export function counterSum(text: string, metric: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${metric}{`)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}
