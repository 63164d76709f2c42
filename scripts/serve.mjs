#!/usr/bin/env node
// Serves the stack: the worker (apps/worker/src/main.ts through tsx) and the built web app (next start in
// apps/web), their output prefixed [worker] and [web]. Used by `npm start` and usable on its own
// (e.g. as Playwright's webServer) once the database is migrated and the web app built:
//   DATABASE_URL=… PORT=3100 node scripts/serve.mjs
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { handleSignals, onShutdown, runMain, shutdown, shuttingDown } from "./lib/lifecycle.mjs";
import { bin, repoRoot } from "./lib/paths.mjs";
import { Fatal, log, portFree, quietEnv, supervise, waitFor } from "./lib/util.mjs";
import { httpStatus } from "./lib/system.mjs";

/**
 * Spawns one long-running child, its lines prefixed with `[name]`. It stays in our process group,
 * so a Ctrl-C, or a runner that kills our group (Playwright's webServer), reaches it too.
 */
function startChild(name, cmd, args, { cwd, env }) {
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  for (const [stream, out] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => out.write(`[${name}] ${line}\n`));
  }
  const { gone, stop } = supervise(child); // SIGTERM, then SIGKILL after 15 s
  return { name, exited: gone.then((r) => ({ name, ...r })), stop };
}

const describe = ({ name, code, signal, error }) =>
  `${name} ${error ? `could not start: ${error}` : `exited (${signal ?? `code ${code}`})`}`;

/**
 * Starts the worker and the web app with `env` (which must hold DATABASE_URL and PORT), and
 * resolves once the web app answers HTTP. Returns `{ url, exited }`: `exited` resolves when the
 * first child exits. Both are stopped on shutdown.
 */
export async function serveStack(env) {
  const port = env.PORT;
  if (!(await portFree(Number(port)))) throw new Fatal(`port ${port} is taken by another program (an earlier run still serving?); free it or set PORT`);
  const fullEnv = { ...process.env, ...quietEnv, ...env };
  const children = [
    // `node --import tsx` rather than the tsx CLI: one process, so stopping it leaves no orphan.
    startChild("worker", process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], { cwd: repoRoot, env: fullEnv }),
    startChild("web", bin("next"), ["start", "-p", String(port)], { cwd: join(repoRoot, "apps", "web"), env: fullEnv }),
  ];
  for (const c of children) onShutdown(c.name, c.stop);
  const exited = Promise.race(children.map((c) => c.exited));

  const url = `http://localhost:${port}`;
  let early = null;
  void exited.then((e) => (early = e));
  const up = await waitFor(async () => early || (await httpStatus({ url: `http://127.0.0.1:${port}`, path: "/" })) > 0, {
    timeoutMs: 120_000,
    intervalMs: 500,
  });
  if (early) throw new Fatal(`${describe(early)} before the web app answered`);
  if (!up) throw new Fatal(`the web app did not answer on port ${port} within 120 s`);
  return { url, exited: exited.then((e) => ({ ...e, message: describe(e) })) };
}

/** Waits until a child exits on its own (not during shutdown), then stops everything with exit 1. */
export async function stopWhenAChildExits(exited) {
  const e = await exited;
  if (shuttingDown()) return;
  log(`${e.message}; stopping everything`);
  await shutdown(1);
}

// Run on its own: serve with the caller's env until a signal or a child's exit.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  handleSignals({ exitCode: 0 });
  void runMain(async () => {
    if (!process.env.DATABASE_URL) throw new Fatal("serve.mjs needs DATABASE_URL (and a migrated database); `npm start` does all of it");
    const { url, exited } = await serveStack({ PORT: process.env.PORT ?? "3000" });
    log(`serving ${url}`);
    await stopWhenAChildExits(exited);
  });
}
