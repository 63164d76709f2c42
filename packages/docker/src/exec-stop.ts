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
    type Info = { Pid?: number; Running?: boolean; ContainerID?: string };
    let info = (await ex.inspect()) as Info;
    // An exec stopped right as it began (a client that floods its output at once) may run before the
    // engine has recorded its pid: asked again for up to a second.
    for (let i = 0; i < 20 && info.Running && (info.Pid ?? 0) <= 1; i++) {
      await new Promise((r) => setTimeout(r, 50));
      info = (await ex.inspect()) as Info;
    }
    const pid = info.Pid ?? 0;
    if (!info.Running || pid <= 1) return !info.Running;
    const full = info.ContainerID ?? containerId;
    const cgroup = await readFile(`/proc/${pid}/cgroup`, "utf8").catch(() => "");
    if (!full || !cgroup.includes(full)) {
      // The process may have ended meanwhile (a flood of output whose reader left ends in SIGPIPE),
      // its pid gone or taken: whether it still runs is the engine's to say.
      const now = (await ex.inspect().catch(() => null)) as Info | null;
      return now !== null && !now.Running;
    }
    process.kill(pid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}
