import { readFile } from "node:fs/promises";
import type Docker from "dockerode";

/**
 * The error an exec ends with when its caller stopped it (a deadline, the worker losing the lead,
 * too much output): what was asked of the engine, and why it was given up on.
 */
export class ExecStoppedError extends Error {
  constructor(
    readonly program: string,
    readonly reason: string,
    /** Whether the process itself was killed, not only left behind (see `killExec`). */
    readonly killed: boolean,
  ) {
    super(`${program} was stopped: ${reason}${killed ? "" : " (the process may still run in its container until it ends or the container stops)"}`);
    this.name = "ExecStoppedError";
  }
}

/** Why a signal was aborted, in words (an AbortSignal.timeout's reason is a DOMException). */
export function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (r instanceof DOMException && r.name === "TimeoutError") return "its deadline passed";
  if (r instanceof Error) return r.message;
  return typeof r === "string" ? r : "aborted";
}

/**
 * Kills an exec's process, best effort. The engine has no call for that (an exec whose client left
 * runs on), so: the engine names the process's pid in the host's pid namespace; when this process
 * sees that pid, and `/proc/<pid>/cgroup` puts it in the exec's container (never some other
 * process that took the pid), it gets SIGKILL. A worker in a pid namespace of its own (a
 * container without `--pid host`) cannot see it: the process is left to end by itself, or with
 * its container. No tool of the tenant's image is ever run for this. Resolves whether it was killed.
 */
export async function killExec(ex: Docker.Exec, containerId: string): Promise<boolean> {
  try {
    const info = (await ex.inspect()) as { Pid?: number; Running?: boolean; ContainerID?: string };
    const pid = info.Pid ?? 0;
    if (!info.Running || pid <= 1) return !info.Running;
    const full = info.ContainerID ?? containerId;
    const cgroup = await readFile(`/proc/${pid}/cgroup`, "utf8").catch(() => "");
    if (!full || !cgroup.includes(full)) return false;
    process.kill(pid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}
