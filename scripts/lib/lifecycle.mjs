// Orderly shutdown: every started piece registers how to stop it; a signal, a fatal error or the
// normal end runs those steps newest first (web and worker, then Caddy, then PostgreSQL) and exits.
import { spawn } from "node:child_process";
import { Fatal, log, supervise } from "./util.mjs";

const steps = [];
let exiting = null;

/**
 * Registers a stop step; returns a function that unregisters it (for a piece stopped early).
 * Steps run newest first, those registered with `first` (the web app, the worker) before all
 * others, whenever they were started: they stop before the database they use.
 */
export function onShutdown(name, stop, { first = false } = {}) {
  const step = { name, stop, first };
  steps.push(step);
  return () => {
    const i = steps.indexOf(step);
    if (i >= 0) steps.splice(i, 1);
  };
}

export const shuttingDown = () => exiting !== null;

/** Runs every stop step (newest first, each bounded in time) and exits with `code`. */
export function shutdown(code) {
  exiting ??= (async () => {
    while (steps.length) {
      const i = steps.findLastIndex((s) => s.first);
      const { name, stop } = i >= 0 ? steps.splice(i, 1)[0] : steps.pop();
      let timer;
      const limit = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("timed out after 30 s")), 30_000);
      });
      try {
        await Promise.race([stop(), limit]);
      } catch (err) {
        log(`stopping ${name} failed: ${err.message}`);
      } finally {
        clearTimeout(timer);
      }
    }
    process.exit(code);
  })();
  return exiting;
}

/**
 * Turns SIGINT/SIGTERM/SIGHUP into an orderly shutdown with `exitCode`; a second signal while
 * stopping exits at once.
 */
export function handleSignals({ exitCode }) {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      if (exiting) {
        log(`${signal} again: exiting without waiting`);
        process.exit(1);
      }
      log(`${signal}: stopping…`);
      void shutdown(exitCode);
    });
  }
}

/**
 * Runs a command to completion with inherited output, in a process group of its own: a shutdown
 * interrupts the whole group (SIGINT, then SIGKILL after 10 s), and whatever the command leaves
 * behind when it exits (a stuck test worker) is killed. A failure rejects with a Fatal naming it.
 */
export async function run(cmd, args, { cwd, env } = {}) {
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "inherit", "inherit"], detached: true });
  const supervised = supervise(child, { signal: "SIGINT", graceMs: 10_000, group: true });
  const unregister = onShutdown(`${cmd} ${args[0] ?? ""}`, supervised.stop);
  const { code, signal, error } = await supervised.gone;
  unregister();
  supervised.send("SIGKILL");
  if (error) throw new Fatal(`could not run ${cmd}: ${error}`);
  if (code !== 0) throw new Fatal(`\`${[cmd, ...args].join(" ")}\` failed (${signal ?? `exit code ${code}`})`);
}

/** Runs `main`; a Fatal prints its one line, anything else its stack; both stop everything and exit 1. */
export async function runMain(main) {
  try {
    await main();
  } catch (err) {
    if (shuttingDown()) return;
    if (err instanceof Fatal) console.error(`levelrail: ${err.message}`);
    else console.error(err);
    await shutdown(1);
  }
}
