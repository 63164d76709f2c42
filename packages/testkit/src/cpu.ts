import { readFileSync, readdirSync } from "node:fs";

/** CPU time (user + system, with that of reaped children) of every process alive now, by pid, in ms. */
export interface CpuReading {
  byPid: Map<number, { name: string; ms: number }>;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** Reads /proc: each process's name and its CPU time so far (children it reaped included). Empty where there is no /proc. */
export function readCpu(): CpuReading {
  const byPid = new Map<number, { name: string; ms: number }>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return { byPid };
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const parsed = parseStat(readFileSync(`/proc/${e}/stat`, "utf8"));
      if (parsed) byPid.set(Number(e), parsed);
    } catch {
      // gone meanwhile
    }
  }
  return { byPid };
}

/** `pid (comm) state ppid …`: the name and utime + stime + cutime + cstime (fields 14–17) in ms. */
export function parseStat(stat: string): { name: string; ms: number } | null {
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const fields = stat.slice(close + 2).split(" ");
  // fields[0] is the state (field 3): utime is field 14, so fields[11].
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
  return Number.isFinite(ticks) ? { name: stat.slice(open + 1, close), ms: ticks * TICK_MS } : null;
}

/**
 * CPU time spent between two readings, summed by a label (`label` names a pid's group; by default its
 * process name): only processes alive at both readings count, so a short-lived one shows in its
 * parent's figure once reaped, or not at all. Largest first.
 */
export function cpuSpent(before: CpuReading, after: CpuReading, label: (pid: number, name: string) => string = (_, name) => name): [string, number][] {
  const sums = new Map<string, number>();
  for (const [pid, a] of after.byPid) {
    const b = before.byPid.get(pid);
    if (!b || b.name !== a.name) continue;
    const key = label(pid, a.name);
    sums.set(key, (sums.get(key) ?? 0) + Math.max(0, a.ms - b.ms));
  }
  return [...sums].filter(([, ms]) => ms > 0).sort((x, y) => y[1] - x[1]);
}
