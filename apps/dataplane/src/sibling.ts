import { readFileSync } from "node:fs";
import * as dnsPacket from "dns-packet";
import { CONTAINER_LABEL, FALLBACK_CONTAINER } from "./answer";
import { askTcp } from "./tcp";
import { DEFAULT_TIMINGS, Watchdog, type WatchdogTimings } from "./watchdog";

/** Whether `pid` runs and its command line names the data plane (a recycled pid is left alone). */
export function isDataPlanePid(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("dataplane");
  } catch {
    return false;
  }
}

/** The other replica's loopback port: replica 0 listens on the base port, replica 1 on the next. */
export const siblingPort = (basePort: number, replica: number): number => (replica === 0 ? basePort + 1 : basePort);

/**
 * The watchdog of the replica on `port`'s sibling, with the real probe (a DNS-over-TCP question
 * that needs no engine: the fallback page's name), its `/healthz` for the pid, and SIGKILL.
 */
export function siblingWatchdog(o: { port: number; zone: string; log: (line: string) => void; timings?: WatchdogTimings }): Watchdog {
  let id = 0;
  const question = () =>
    dnsPacket.encode({ type: "query", id: (id = (id + 1) & 0xffff), flags: 0, questions: [{ type: "A", name: `${FALLBACK_CONTAINER}.${CONTAINER_LABEL}.${o.zone}` }] });
  return new Watchdog(
    {
      probe: async (timeoutMs) => {
        await askTcp(o.port, question(), timeoutMs);
      },
      siblingPid: async () => {
        const res = await fetch(`http://127.0.0.1:${o.port}/healthz`, { signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { pid?: unknown };
        return typeof body.pid === "number" ? body.pid : null;
      },
      isDataPlane: isDataPlanePid,
      kill: (pid) => process.kill(pid, "SIGKILL"),
      now: () => performance.now(),
      log: o.log,
      ownPid: process.pid,
    },
    o.timings ?? DEFAULT_TIMINGS,
  );
}
