// The data plane's processes: Caddy and the mesh DNS (apps/dataplane). They run in sessions of
// their own (not children of the launcher), so neither a Ctrl-C nor a crash of the panel reaches
// them; the next start adopts them when they answer, and replaces the mesh DNS only when its code
// changed (the new one binds beside the old one, then tells it to go: no query is dropped).
import { createHash } from "node:crypto";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onShutdown } from "./lifecycle.mjs";
import { repoRoot } from "./paths.mjs";
import { Fatal, cmdline, log, pidAlive, sleep, tail, waitFor } from "./util.mjs";

export const dataPlaneDir = (dataDir) => join(dataDir, "dataplane");
const dnsPidFile = (dataDir) => join(dataPlaneDir(dataDir), "dns.pid");
export const caddyPidFile = (dataDir) => join(dataDir, "caddy", "caddy.pid");

/** The files whose code the running mesh DNS is made of: a change in any of them is a new version. */
const SOURCES = [
  "apps/dataplane/src",
  "packages/spec/src/dataplane.ts",
  "packages/spec/src/naming.ts",
  "packages/docker/src/index.ts",
  "packages/config/src/env.ts",
];

/** A short hash of the data plane's code: what `/healthz` must report for the running one to be adopted. */
export function dataPlaneVersion() {
  const h = createHash("sha256");
  const add = (rel) => {
    const abs = join(repoRoot, rel);
    if (!existsSync(abs)) return;
    if (abs.endsWith(".ts")) {
      h.update(rel).update(readFileSync(abs));
      return;
    }
    for (const e of readdirSync(abs).sort()) if (!e.endsWith(".test.ts")) add(join(rel, e));
  };
  for (const s of SOURCES) add(s);
  return h.digest("hex").slice(0, 12);
}

/** What the data plane on `port` says of itself, or null when nothing answers. */
export async function dataPlaneHealth(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

/**
 * The mesh DNS answers on 127.0.0.1:`port` with this code's version, or we start it (detached,
 * its own session; output to `<data dir>/logs/dataplane.log`) and wait until it does. With
 * `attached` (tests) it is stopped with the launcher instead.
 */
export async function ensureDataPlane({ dataDir, port, env, attached = false }) {
  const version = dataPlaneVersion();
  const health = await dataPlaneHealth(port);
  if (health?.version === version) {
    log(`data plane running (pid ${health.pid}, version ${version}, state generation ${health.generation}): adopted`);
    return;
  }
  if (health) log(`data plane pid ${health.pid} runs version ${health.version}; starting ${version} beside it to take over`);
  mkdirSync(dataPlaneDir(dataDir), { recursive: true });
  const logFile = join(dataDir, "logs", "dataplane.log");
  const fd = openSync(logFile, "a");
  const child = spawn(process.execPath, ["--import", "tsx", "apps/dataplane/src/main.ts"], {
    cwd: repoRoot,
    detached: true, // a session of its own: the terminal's Ctrl-C and the launcher's death do not reach it
    stdio: ["ignore", fd, fd],
    env: { ...process.env, ...env, LEVELRAIL_DATA_DIR: dataDir, LEVELRAIL_MESH_DNS_PORT: String(port), LEVELRAIL_DATAPLANE_VERSION: version },
  });
  let exited = false;
  child.once("exit", () => (exited = true));
  if (attached) onShutdown("data plane", () => stopPid(child.pid, "data plane"));
  else child.unref();
  const up = await waitFor(async () => exited || (await dataPlaneHealth(port))?.version === version, { timeoutMs: 30_000, intervalMs: 200 });
  if (!up || exited) throw new Fatal(`the data plane did not start on 127.0.0.1:${port}; its log (${logFile}):\n${tail(logFile)}`);
  log(`data plane ${version} serving on 127.0.0.1:${port} (pid ${child.pid}; log: ${logFile})`);
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

/** The pid in a pid file, when that process still runs and its command line contains `expect`. */
export function livePid(file, expect) {
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, "utf8").trim());
  return pidAlive(pid) && cmdline(pid).join(" ").includes(expect) ? pid : null;
}

/** `levelrail stop --all`: the mesh DNS and our Caddy; app containers keep running. */
export async function stopDataPlane(dataDir) {
  const stopped = [];
  const dns = livePid(dnsPidFile(dataDir), "dataplane");
  if (dns && (await stopPid(dns, "the data plane"))) stopped.push(`data plane (pid ${dns})`);
  const caddy = livePid(caddyPidFile(dataDir), "caddy");
  if (caddy && (await stopPid(caddy, "caddy"))) {
    stopped.push(`caddy (pid ${caddy})`);
    rmSync(caddyPidFile(dataDir), { force: true });
  }
  return stopped;
}

/** Records a detached Caddy's pid so `levelrail stop --all` can find it. */
export function recordCaddyPid(dataDir, pid) {
  mkdirSync(join(dataDir, "caddy"), { recursive: true });
  writeFileSync(caddyPidFile(dataDir), `${pid}\n`);
}
