// Before `install` changes anything: the ingress ports must be free or held by this installation's
// own Caddy (its container, or the Caddy process `npm start` runs); otherwise it refuses, naming the
// program that holds them.
import { type ProcFs, descendsFrom, portListeners } from "../doctor/procfs";

export interface PortHolder {
  port: number;
  name: string;
  pid: number;
}

/**
 * The first of `ports` that a process outside `ours` (pids, with their children) listens on, or
 * null. A socket whose holder cannot be seen counts as foreign, with pid 0.
 */
export function foreignHolder(fs: ProcFs, ports: readonly number[], ours: ReadonlySet<number>): PortHolder | null {
  for (const port of ports) {
    const l = portListeners(fs, port);
    if (!l.listening) continue;
    const other = l.holders.find((h) => !descendsFrom(fs, h.pid, ours));
    if (other) return { port, name: other.name, pid: other.pid };
    if (l.unseen > 0) return { port, name: "an unknown program", pid: 0 };
  }
  return null;
}

export const describeHolder = (h: PortHolder, variable: string) =>
  `port ${h.port} (${variable}) is held by ${h.name}${h.pid ? ` (pid ${h.pid})` : ""}: stop it or set ${variable} to a free port; nothing was changed`;
