import { nextDue } from "@levelrail/spec/database";

/** How many due times one pass steps over at most (a minutely schedule across ten weeks of downtime). */
const MAX_STEPS = 100_000;

/**
 * Pure: which scheduled run is due now and when to look again. Runs are due after `since` (when the
 * schedule was set) and after the last recorded one; due times missed while no worker ran are one
 * run, for the latest of them (never lost, never repeated: the run is recorded by its due time).
 */
export function dueRun(cron: string, since: Date, lastRecorded: Date | null, now: Date): { runFor: Date | null; wakeAt: Date | null } {
  const base = lastRecorded && lastRecorded > since ? lastRecorded : since;
  let due = nextDue(cron, base);
  if (!due) return { runFor: null, wakeAt: null };
  if (due > now) return { runFor: null, wakeAt: due };
  for (let i = 0; i < MAX_STEPS; i++) {
    const after = nextDue(cron, due);
    if (!after || after > now) return { runFor: due, wakeAt: after };
    due = after;
  }
  return { runFor: due, wakeAt: nextDue(cron, now) };
}

/**
 * Pure: which stored backups the keep rule removes. The newest `keep` verified ones stay, topped up
 * with the newest unverified ones while fewer than `keep` are verified: a verified backup never goes
 * while an unverified one stays. Input newest first.
 */
export function pruneSet<T extends { id: string; status: "verified" | "unverified" }>(stored: T[], keep: number): T[] {
  const verified = stored.filter((b) => b.status === "verified");
  const unverified = stored.filter((b) => b.status === "unverified");
  const kept = new Set([...verified.slice(0, keep), ...unverified.slice(0, Math.max(0, keep - verified.length))].map((b) => b.id));
  return stored.filter((b) => !kept.has(b.id));
}

/** `<short>/<databaseId>/<ISO time>.dump`: where a backup's object lives in its target's bucket. */
export function objectKeyOf(shortName: string, databaseId: string, at: Date): string {
  return `${shortName}/${databaseId}/${at.toISOString()}.dump`;
}
