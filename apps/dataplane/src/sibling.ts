import { readFileSync } from "node:fs";
import { get } from "node:http";
import * as dnsPacket from "dns-packet";
import { CONTAINER_LABEL, FALLBACK_CONTAINER } from "./answer";
import { askTcp } from "./tcp";
import { DEFAULT_TIMINGS, type SiblingInfo, Watchdog, type WatchdogTimings } from "./watchdog";

/** Whether `pid` runs and its command line names the data plane (a recycled pid is left alone). */
export function isDataPlanePid(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("dataplane");
  } catch {
    return false;
  }
}

/** Whether the kernel holds `pid` stopped or traced (`T`/`t` in /proc/<pid>/stat): a SIGSTOP, a debugger. */
export function isStoppedPid(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "T" || state === "t";
  } catch {
    return false;
  }
}

/**
 * The pid and serving time a data plane's `/healthz` on `port` reports (node:http, not `fetch`: loading fetch's
 * implementation the first time blocks the event loop for longer than the watchdog's patience).
 */
export function siblingInfo(port: number, timeoutMs = 1000): Promise<SiblingInfo | null> {
  return new Promise((resolve, reject) => {
    const req = get({ host: "127.0.0.1", port, path: "/healthz", agent: false, timeout: timeoutMs }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("error", reject);
      res.on("end", () => {
        try {
          const { pid, servingMs } = JSON.parse(text) as { pid?: unknown; servingMs?: unknown };
          resolve(typeof pid === "number" ? { pid, servingMs: typeof servingMs === "number" ? servingMs : null } : null);
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from 127.0.0.1:${port} within ${timeoutMs} ms`)));
    req.on("error", reject);
  });
}

/** The pid in a replica's pid file, or null when there is none. */
export function readPidFile(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isInteger(pid) && pid > 1 ? pid : null;
  } catch {
    return null;
  }
}

/** The other replica's loopback port: replica 0 listens on the base port, replica 1 on the next. */
export const siblingPort = (basePort: number, replica: number): number => (replica === 0 ? basePort + 1 : basePort);

/**
 * The watchdog of the replica on `port`'s sibling, with the real probe (a DNS-over-TCP question
 * that needs no engine: the fallback page's name), its `/healthz` for the pid, and SIGKILL.
 */
export function siblingWatchdog(o: { port: number; zone: string; pidFile: string; log: (line: string) => void; timings?: WatchdogTimings }): Watchdog {
  let id = 0;
  const question = () =>
    dnsPacket.encode({ type: "query", id: (id = (id + 1) & 0xffff), flags: 0, questions: [{ type: "A", name: `${FALLBACK_CONTAINER}.${CONTAINER_LABEL}.${o.zone}` }] });
  return new Watchdog(
    {
      probe: async (timeoutMs) => {
        await askTcp(o.port, question(), timeoutMs);
      },
      sibling: () => siblingInfo(o.port),
      recordedPid: () => readPidFile(o.pidFile),
      isDataPlane: isDataPlanePid,
      stopped: isStoppedPid,
      kill: (pid) => process.kill(pid, "SIGKILL"),
      now: () => performance.now(),
      log: o.log,
      ownPid: process.pid,
    },
    o.timings ?? DEFAULT_TIMINGS,
  );
}
