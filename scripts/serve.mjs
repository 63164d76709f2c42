#!/usr/bin/env node
// Serves the panel: the worker (apps/worker/src/main.ts, compiled to apps/worker/dist/main.mjs when
// its code changed) and the built web app (apps/web/server/main.mjs: Next behind node:http), their output prefixed [worker] and [web], each restarted with backoff when
// it exits on its own. Used by `npm start` and usable on its own (e.g. as Playwright's webServer)
// once the database is migrated, the web app built and the data plane running:
//   DATABASE_URL=… PORT=3100 node scripts/serve.mjs
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { handleSignals, onShutdown, runMain, shuttingDown } from "./lib/lifecycle.mjs";
import { BUNDLES, bundle, nodeArgs } from "./lib/bundle.mjs";
import { repoRoot } from "./lib/paths.mjs";
import { Fatal, log, portFree, quietEnv, sleep, supervise, waitFor } from "./lib/util.mjs";
import { httpStatus } from "./lib/system.mjs";

/** Backoff between restarts of a crashed panel process: 1 s doubling to 30 s; reset after a minute up. */
const BACKOFF = { firstMs: 1000, maxMs: 30_000, healthyMs: 60_000 };

/** Spawns one long-running child, its lines prefixed with `[name]`; it stays in our process group. */
function spawnChild(name, cmd, args, { cwd, env }) {
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  for (const [stream, out] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => out.write(`[${name}] ${line}\n`));
  }
  return supervise(child); // SIGTERM, then SIGKILL after 15 s
}

const describe = ({ code, signal, error }) => (error ? `could not start: ${error}` : `exited (${signal ?? `code ${code}`})`);

/**
 * Keeps one panel process running until shutdown: when it exits on its own it is logged and
 * started again after a backoff. The data plane does not depend on it, so nothing else stops.
 */
function keepRunning(name, start) {
  let current = start();
  let stopping = false;
  const loop = (async () => {
    let delay = BACKOFF.firstMs;
    for (;;) {
      const startedAt = Date.now();
      const r = await current.gone;
      if (stopping || shuttingDown()) return;
      if (Date.now() - startedAt > BACKOFF.healthyMs) delay = BACKOFF.firstMs;
      log(`${name} ${describe(r)}; restarting it in ${delay / 1000} s (the apps keep serving)`);
      await sleep(delay);
      if (stopping || shuttingDown()) return;
      delay = Math.min(BACKOFF.maxMs, delay * 2);
      current = start();
    }
  })();
  onShutdown(
    name,
    async () => {
      stopping = true;
      await current.stop();
      await loop;
    },
    { first: true },
  );
}

/**
 * Starts the web app with `env` (which must hold DATABASE_URL and PORT), kept running. Returns
 * `ready`, which resolves once it answers HTTP (it answers 503 while the database is down).
 */
export async function startWeb(env) {
  const port = env.PORT;
  if (!(await portFree(Number(port)))) throw new Fatal(`port ${port} is taken by another program (an earlier run still serving?); free it or set PORT`);
  const fullEnv = { ...process.env, ...quietEnv, ...env, NODE_ENV: "production", PORT: String(port) };
  // Not `next start`: apps/web/server/main.mjs wraps Next to resolve the caller's address (trusted proxies).
  keepRunning("web", () => spawnChild("web", process.execPath, ["server/main.mjs"], { cwd: join(repoRoot, "apps", "web"), env: fullEnv }));
  const ready = waitFor(async () => (await httpStatus({ url: `http://127.0.0.1:${port}`, path: "/" })) > 0, { timeoutMs: 120_000, intervalMs: 100 }).then((up) => {
    if (!up) throw new Fatal(`the web app did not answer on port ${port} within 120 s`);
    return { url: `http://localhost:${port}` };
  });
  ready.catch(() => {}); // the caller awaits it; a rejection meanwhile is not unhandled
  return { ready };
}

/**
 * Starts the worker with `env`, kept running, once `after` (the web app's `ready`) resolves: the
 * two do not share the CPU while booting, and the worker picks up every pending deploy when it
 * starts. Its bundle is checked (or built) meanwhile.
 */
export async function startWorker(env, after = Promise.resolve()) {
  const compiled = bundle(BUNDLES.worker);
  compiled.catch(() => {});
  await after;
  const worker = await compiled.catch((err) => {
    throw new Fatal(`could not compile the worker: ${err.message}`);
  });
  if (worker.built) log(`compiled the worker to ${BUNDLES.worker.outfile}`);
  const fullEnv = { ...process.env, ...quietEnv, ...env };
  keepRunning("worker", () => spawnChild("worker", process.execPath, nodeArgs(worker.outfile), { cwd: repoRoot, env: fullEnv }));
}

/** The web app, then the worker; resolves with the URL once the web app answers. */
export async function serveStack(env) {
  const { ready } = await startWeb(env);
  await startWorker(env, ready);
  return ready;
}

/** Resolves never: the panel runs until a signal stops it. */
export const untilStopped = () => new Promise(() => {});

// Run on its own: serve with the caller's env until a signal.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  handleSignals({ exitCode: 0 });
  void runMain(async () => {
    if (!process.env.DATABASE_URL) throw new Fatal("serve.mjs needs DATABASE_URL (and a migrated database); `npm start` does all of it");
    const { url } = await serveStack({ PORT: process.env.PORT ?? "3000" });
    log(`serving ${url}`);
    await untilStopped();
  });
}
