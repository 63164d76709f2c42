// Small process and logging helpers for the launcher scripts. Plain Node, no npm dependencies:
// these run before `npm install`.
import { spawnSync } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";

/** An error whose message is the one line the operator sees; the launcher exits 1 with it. */
export class Fatal extends Error {}

export const log = (line) => console.error(`levelrail: ${line}`);

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const isRoot = () => process.getuid?.() === 0;

/** Absolute path of an executable on PATH, or null. */
export function which(cmd) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, cmd);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** Whether a process with this pid exists (a zombie counts as gone). */
export function pidAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code !== "EPERM") return false;
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

/** The argv of a live process, or [] when it is gone or unreadable. */
export function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

/** Runs a command synchronously and returns its exit status and output; never throws. */
export function capture(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", ...opts });
  return { ok: r.status === 0, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes; returns the value or null. */
export async function waitFor(check, { timeoutMs, intervalMs = 250 }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() >= deadline) return null;
    await sleep(intervalMs);
  }
}

/** Whether nothing listens on host:port yet. */
export function portFree(port, host = "127.0.0.1") {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** The last lines of a log file, indented, for an error message. */
export function tail(file, lines = 15) {
  try {
    const text = readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines);
    return text.map((l) => `    ${l}`).join("\n");
  } catch {
    return "    (no log)";
  }
}

/** Environment that keeps every tool we drive from phoning home. */
export const quietEnv = {
  NEXT_TELEMETRY_DISABLED: "1",
  TURBO_TELEMETRY_DISABLED: "1",
  TURBO_NO_UPDATE_NOTIFIER: "1",
  DO_NOT_TRACK: "1",
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
  npm_config_update_notifier: "false",
};

/**
 * Watches a spawned child. `gone` resolves at its exit (or failure to start) with
 * `{ code, signal, error }`; `stop()` sends `signal` (to its whole process group when `group`),
 * sends `escalate` if it is still there after `graceMs`, and waits for the exit.
 */
export function supervise(child, { signal = "SIGTERM", escalate = "SIGKILL", graceMs = 15_000, group = false } = {}) {
  let exited = false;
  const gone = new Promise((resolve) => {
    const done = (r) => {
      exited = true;
      resolve(r);
    };
    child.once("error", (err) => done({ code: null, signal: null, error: err.message }));
    child.once("exit", (code, sig) => done({ code, signal: sig }));
  });
  const send = (sig) => {
    try {
      if (group) process.kill(-child.pid, sig);
      else child.kill(sig);
    } catch {
      // already gone
    }
  };
  const stop = async () => {
    if (exited) return;
    send(signal);
    const timer = setTimeout(() => send(escalate), graceMs);
    await gone;
    clearTimeout(timer);
  };
  return { gone, stop, send, exited: () => exited };
}

/** When process `pid` started (clock ticks since boot: /proc/<pid>/stat, field 22), or null where it cannot be read. */
export function processStart(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * What a pid file records of a process: its pid and when it started. After a crash or a reboot the
 * pid may belong to another process by the next start; its start time then differs.
 */
export function pidRecord(pid = process.pid) {
  const start = processStart(pid);
  return start ? `${pid} ${start}\n` : `${pid}\n`;
}

/** The pid a pid file's text names, when that very process still runs (a file of an earlier version records no start time: alive is enough). */
export function recordedPid(text) {
  const [pidText, start] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!pidAlive(pid)) return null;
  const now = processStart(pid);
  return start && now !== null && now !== start ? null : pid;
}

/** The pid of a running launcher recorded in `file` (a node process), or null. */
export function livePanelPid(file) {
  try {
    const pid = recordedPid(readFileSync(file, "utf8"));
    return pid !== null && pid !== process.pid && cmdline(pid).some((a) => a.endsWith("node") || a.includes("start.mjs")) ? pid : null;
  } catch {
    return null;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopPid(pid, what, graceMs = 10_000) {
  if (!pidAlive(pid)) return false;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return false;
  }
  if (!(await waitFor(() => !pidAlive(pid), { timeoutMs: graceMs, intervalMs: 100 }))) {
    log(`${what} (pid ${pid}) did not stop within ${graceMs / 1000} s; killing it`);
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
    await sleep(200);
  }
  return true;
}
