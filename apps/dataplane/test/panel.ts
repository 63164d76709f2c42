import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, openSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Runtime } from "@levelrail/docker";
import { instanceFilter } from "@levelrail/spec/naming";
import { waitFor } from "@levelrail/testkit/wait";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
};
/** The parent of `pid` (0 when it is gone). */
export const ppid = (pid: number) => {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
  } catch {
    return 0;
  }
};
/** Whether `pid` has exited and waits for its parent to reap it. */
export const zombie = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
  } catch {
    return false;
  }
};
/** Every live pid whose command line contains `needle`. */
export const pidsOf = (needle: string) =>
  readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => cmdline(pid).includes(needle));

/**
 * A real `npm start` (scripts/start.mjs) in a process group of its own, as an operator's terminal
 * would run it, with its own data dir and ports: started, signalled, started again.
 */
export class Panel {
  private child: ChildProcess | null = null;
  output = "";

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  get pid(): number {
    if (!this.child?.pid) throw new Error("the panel is not running");
    return this.child.pid;
  }

  async start(): Promise<void> {
    this.output = "";
    const child = spawn(process.execPath, ["scripts/start.mjs"], { cwd: repoRoot, env: this.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    this.child = child;
    const take = (b: Buffer) => {
      this.output = (this.output + b.toString()).slice(-200_000);
    };
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    let exited = false;
    child.once("exit", () => (exited = true));
    await waitFor("the panel to be ready", async () => (exited ? Promise.reject(new Error(`the panel exited:\n${this.output.slice(-3000)}`)) : this.output.includes("Levelrail is running at") || undefined), {
      timeoutMs: 300_000,
      intervalMs: 200,
    });
  }

  /** The panel process (`worker` or `web`) the launcher runs now. */
  childPid(what: "worker" | "web"): number {
    const needle = what === "worker" ? "apps/worker/dist/main.mjs" : "server/main.mjs";
    const pid = pidsOf(needle).find((p) => ppid(p) === this.pid);
    if (!pid) throw new Error(`no ${what} process under the panel (pid ${this.pid})`);
    return pid;
  }

  /** Sends a signal to the launcher's whole process group (a terminal's Ctrl-C is SIGINT to it). */
  signalGroup(signal: NodeJS.Signals): void {
    process.kill(-this.pid, signal);
  }

  async exited(timeoutMs = 60_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("the panel did not exit")), timeoutMs);
      child.once("exit", () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** Waits until the launcher logged `text` `count` times (e.g. a restart). */
  async logged(text: string, count = 1, timeoutMs = 60_000): Promise<void> {
    await waitFor(`the panel to log ${JSON.stringify(text)}`, async () => this.output.split(text).length - 1 >= count || undefined, { timeoutMs, intervalMs: 100 });
  }
}

/** The kernel's name of `pid`'s command (empty when it is gone). */
export const comm = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
};

/** Restarts the Docker engine the way it runs here: systemd's unit, or a dockerd like the one `npm test` starts (log to `logFile`). */
export async function restartDockerd(runtime: Runtime, logFile: string): Promise<void> {
  const ping = () => runtime.ping().then(() => true, () => false);
  if (existsSync("/run/systemd/system")) {
    await new Promise((r) => spawn("systemctl", ["restart", "docker"], { stdio: "ignore" }).once("exit", r));
  } else {
    const dockerd = () => pidsOf("dockerd").filter((p) => comm(p) === "dockerd");
    for (const pid of dockerd()) process.kill(pid, "SIGTERM");
    await waitFor("dockerd to stop", async () => (dockerd().length ? undefined : true), { timeoutMs: 60_000, intervalMs: 200 });
    const fd = openSync(logFile, "a");
    spawn("dockerd", [], { detached: true, stdio: ["ignore", fd, fd] }).unref();
  }
  // An engine restoring many containers (another suite's, on a shared machine) may take minutes.
  await waitFor("dockerd to answer", async () => ((await ping()) ? true : undefined), { timeoutMs: 300_000, intervalMs: 100 });
}

/**
 * Removes an installation a test or benchmark made: Ctrl-C to its panel, `levelrail stop --all`
 * (Caddy and the data plane), then every container and network with its labels, and its data dir.
 */
export async function removeInstallation(panel: Panel | undefined, o: { runtime: Runtime; shortName: string; dataDir: string }): Promise<void> {
  try {
    panel?.signalGroup("SIGINT");
    await panel?.exited();
  } catch {
    // not running
  }
  const stop = spawn(process.execPath, ["scripts/levelrail.mjs", "stop", "--all"], { cwd: repoRoot, env: { ...process.env, LEVELRAIL_DATA_DIR: o.dataDir, LEVELRAIL_SHORT_NAME: o.shortName }, stdio: "ignore" });
  await new Promise((r) => stop.once("exit", r));
  for (const c of await o.runtime.listContainers(instanceFilter(o.shortName))) await o.runtime.removeContainer(c.id);
  for (const n of await o.runtime.listNetworks(instanceFilter(o.shortName))) await o.runtime.removeNetwork(n.name);
  for (const v of await o.runtime.listVolumes(instanceFilter(o.shortName))) await o.runtime.removeVolume(v.name);
  rmSync(o.dataDir, { recursive: true, force: true });
}
