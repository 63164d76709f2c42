import { existsSync, readFileSync } from "node:fs";
import { type Docker, demuxLogs } from "@levelrail/docker";
import { DataPlaneRoles, Labels, instanceFilter } from "@levelrail/spec/naming";
import { waitFor } from "@levelrail/testkit/wait";
import { pidsOf } from "./panel";

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

/** The mesh DNS replicas' watchdog and start-up lines (diagnostics for a failed assertion). */
export async function watchdogLines(docker: Docker, short: string): Promise<string> {
  const lines: string[] = [];
  for (const p of await dataPlaneProcesses(docker, short)) {
    if (p.role !== DataPlaneRoles.meshDns) continue;
    const raw = (await docker.getContainer(p.id).logs({ stdout: true, stderr: true, follow: false, tail: 400 })) as unknown as Buffer;
    lines.push(...demuxLogs(raw).split("\n").filter((l) => l.includes("[watchdog]") || l.includes(" ready (pid")).slice(-12));
  }
  return lines.join("\n");
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

const comm = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
};
const dockerdPids = () => pidsOf("dockerd").filter((p) => comm(p) === "dockerd");

/** Stops dockerd, then `start()`s it; resolves with `performance.now()` when the engine answers again. */
export async function restartEngine(docker: Docker, start: () => void): Promise<number> {
  for (const pid of dockerdPids()) process.kill(pid, "SIGTERM");
  await waitFor("dockerd to stop", async () => (dockerdPids().length ? undefined : true), { timeoutMs: 60_000, intervalMs: 100 });
  start();
  await waitFor("dockerd to answer", async () => ((await docker.ping().then(() => true, () => false)) ? true : undefined), { timeoutMs: 300_000, intervalMs: 50 });
  return performance.now();
}

/**
 * A host reboot, simulated: every process of the installation `kill -9`ed (`pids`, and the host pid
 * of every container of `short`: apps, Caddy, the mesh DNS), then dockerd stopped and started.
 * Resolves with `performance.now()` when the engine answers again.
 */
export async function simulateReboot(docker: Docker, short: string, pids: number[], start: () => void): Promise<number> {
  const containerPids: number[] = [];
  for (const c of await docker.listContainers({ filters: { label: instanceFilter(short) } })) {
    const info = await docker.getContainer(c.Id).inspect();
    if (info.State.Pid > 0) containerPids.push(info.State.Pid);
  }
  for (const pid of [...pids, ...containerPids]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  return restartEngine(docker, start);
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
