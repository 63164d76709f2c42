import { existsSync, readFileSync } from "node:fs";
import { type Docker, demuxLogs } from "@levelrail/docker";
import { DataPlaneRoles, Labels, instanceFilter } from "@levelrail/spec/naming";
import { waitFor } from "@levelrail/testkit/wait";
import { comm, pidsOf, ppid, zombie } from "./panel";

/**
 * Faults of an unattended installation, shared by the fault suite and `npm run bench -- unattended`:
 * the data plane's containers found by their labels, their processes killed or frozen, a reboot.
 */
export interface DataPlaneProcess {
  id: string;
  name: string;
  pid: number;
  role: string;
  replica: string | undefined;
}

/** The running data-plane containers of installation `short` (Caddy, each mesh DNS replica), with their host pids. */
export async function dataPlaneProcesses(docker: Docker, short: string): Promise<DataPlaneProcess[]> {
  const out: DataPlaneProcess[] = [];
  for (const c of await docker.listContainers({ filters: { label: instanceFilter(short) } })) {
    const role = c.Labels[Labels.role] ?? "";
    if (role !== DataPlaneRoles.ingress && role !== DataPlaneRoles.meshDns) continue;
    const info = await docker.getContainer(c.Id).inspect();
    if (info.State.Running && info.State.Pid > 0) out.push({ id: c.Id, name: info.Name.slice(1), pid: info.State.Pid, role, replica: c.Labels["levelrail.replica"] });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export async function dataPlaneProcess(docker: Docker, short: string, role: string, replica?: string): Promise<DataPlaneProcess> {
  const p = (await dataPlaneProcesses(docker, short)).find((x) => x.role === role && (replica === undefined || x.replica === replica));
  if (!p) throw new Error(`no running ${role}${replica === undefined ? "" : ` replica ${replica}`} container of ${short}`);
  return p;
}

/** The mesh DNS replicas' watchdog and start-up lines, or (`all`) their last lines (diagnostics for a failed assertion). */
export async function watchdogLines(docker: Docker, short: string, all = false): Promise<string> {
  const lines: string[] = [];
  for (const p of await dataPlaneProcesses(docker, short)) {
    if (p.role !== DataPlaneRoles.meshDns) continue;
    const raw = (await docker.getContainer(p.id).logs({ stdout: true, stderr: true, follow: false, tail: 400 })) as unknown as Buffer;
    lines.push(...demuxLogs(raw).split("\n").filter((l) => all || l.includes("[watchdog]") || l.includes(" ready (pid")).slice(-12));
  }
  return lines.join("\n");
}

/** Every container of the instance: name, state, restarts and addresses (diagnostics for a timeout). */
export async function describeInstance(docker: Docker, short: string): Promise<string> {
  const out: string[] = [];
  for (const c of await docker.listContainers({ all: true, filters: { label: instanceFilter(short) } })) {
    const info = await docker.getContainer(c.Id).inspect();
    const ips = Object.values(info.NetworkSettings.Networks ?? {}).map((n) => n.IPAddress).join(",");
    out.push(`${info.Name.slice(1)} ${info.State.Status} restarts=${info.RestartCount} pid=${info.State.Pid} ip=${ips || "-"}${info.State.Error ? ` error=${info.State.Error}` : ""}`);
  }
  return out.join("; ");
}

/**
 * `kill -9` of a data-plane container's process; resolves with the ms until the engine ran it again
 * (a new pid in the same container) and `serving()` said yes.
 */
export async function killAndTimeBack(docker: Docker, p: DataPlaneProcess, serving: () => Promise<boolean>): Promise<number> {
  const killed = performance.now();
  process.kill(p.pid, "SIGKILL");
  await waitFor(`${p.name} to run again`, async () => {
    const info = await docker.getContainer(p.id).inspect();
    return info.State.Running && info.State.Pid > 0 && info.State.Pid !== p.pid ? true : undefined;
  }, { timeoutMs: 30_000, intervalMs: 20 });
  await waitFor(`${p.name} to serve again`, async () => ((await serving()) ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
  return performance.now() - killed;
}

/** The engine's live-restore setting, as it reports it. */
export async function liveRestore(docker: Docker): Promise<boolean> {
  return Boolean(((await docker.info()) as { LiveRestoreEnabled?: boolean }).LiveRestoreEnabled);
}

/** dockerd's pids (a zombie left for its parent to reap is no dockerd any more). */
const dockerdPids = () => pidsOf("dockerd").filter((p) => comm(p) === "dockerd" && !zombie(p));

/** Stops dockerd (SIGTERM: with live-restore its containers keep running) and waits until it has gone. */
async function stopEngine(): Promise<void> {
  for (const pid of dockerdPids()) process.kill(pid, "SIGTERM");
  await waitFor("dockerd to stop", async () => (dockerdPids().length ? undefined : true), { timeoutMs: 60_000, intervalMs: 100 });
}

/** `start()`s dockerd; resolves with `performance.now()` when the engine answers. */
async function startEngine(docker: Docker, start: () => void): Promise<number> {
  start();
  await waitFor("dockerd to answer", async () => ((await docker.ping().then(() => true, () => false)) ? true : undefined), { timeoutMs: 300_000, intervalMs: 50 });
  return performance.now();
}

/** Stops dockerd, then `start()`s it; resolves with `performance.now()` when the engine answers again. */
export async function restartEngine(docker: Docker, start: () => void): Promise<number> {
  await stopEngine();
  return startEngine(docker, start);
}

/** SIGKILL to each pid that still runs. */
const killAll = (pids: number[]) => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
};

/**
 * A host reboot, simulated: dockerd stopped first (so nothing reacts to the deaths that follow; with
 * live-restore it leaves the containers running), then every process of the installation `kill -9`ed:
 * `pids`, the host pid of every container of `short` (apps, Caddy, the mesh DNS) and the containerd
 * shim that held it. The shims matter: a reboot takes them and the runtime's state with it, and a task
 * left behind by a live shim makes the engine's restart fail ("task … already exists"). Then dockerd
 * is started again. (A dockerd killed with -9 is no model: its containerd lingers unreaped and the next
 * dockerd gives up waiting for it.) Resolves with `performance.now()` when the engine answers again.
 */
export async function simulateReboot(docker: Docker, short: string, pids: number[], start: () => void): Promise<number> {
  const containerPids: number[] = [];
  for (const c of await docker.listContainers({ filters: { label: instanceFilter(short) } })) {
    const info = await docker.getContainer(c.Id).inspect();
    if (info.State.Pid > 0) containerPids.push(info.State.Pid);
  }
  const shims = containerPids.map(ppid).filter((p) => p > 1 && comm(p).startsWith("containerd-shim"));
  await stopEngine();
  killAll([...pids, ...containerPids, ...shims]);
  return startEngine(docker, start);
}

/** Whether /etc/docker/daemon.json turns live-restore on (then dockerd must not get the flag too). */
export function daemonJsonLiveRestore(file = "/etc/docker/daemon.json"): boolean {
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { "live-restore"?: boolean })["live-restore"] === true;
  } catch {
    return false;
  }
}
