/**
 * The four DORA figures, as pure functions over plain rows: deployment frequency, lead time for
 * changes, change failure rate and time to restore, each with its performance band.
 *
 * Bands follow one source: the software delivery performance clusters of the 2023 Accelerate State
 * of DevOps Report (DORA / Google Cloud, https://dora.dev/research/2023/dora-report/):
 *
 * |                        | elite              | high                 | medium                | low    |
 * | deployment frequency   | on demand (> 1/day)| daily to weekly      | weekly to monthly     | less   |
 * | lead time for changes  | < 1 day            | 1 day to 1 week      | 1 week to 1 month     | beyond |
 * | change failure rate    | 5%                 | 10%                  | 15%                   | 64%    |
 * | failed deployment recovery time (time to restore) | < 1 hour | < 1 day | 1 day to 1 week | beyond |
 *
 * The report gives each cluster's change failure rate as one value; a rate up to that value falls in
 * the cluster (≤ 5% elite, ≤ 10% high, ≤ 15% medium, above low).
 */

export const DORA_BANDS = ["elite", "high", "medium", "low"] as const;
export type DoraBand = (typeof DORA_BANDS)[number];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A rollback of the same service this soon after a release went live marks that release a failed change. */
export const ROLLBACK_MARKS_WITHIN_MS = HOUR;

/** Deploys per day → band. */
export function frequencyBand(perDay: number): DoraBand {
  if (perDay > 1) return "elite";
  if (perDay >= 1 / 7) return "high";
  if (perDay >= 1 / 30) return "medium";
  return "low";
}

export function leadTimeBand(ms: number): DoraBand {
  if (ms < DAY) return "elite";
  if (ms < 7 * DAY) return "high";
  if (ms < 30 * DAY) return "medium";
  return "low";
}

/** `rate` from 0 to 1. */
export function changeFailureBand(rate: number): DoraBand {
  if (rate <= 0.05) return "elite";
  if (rate <= 0.1) return "high";
  if (rate <= 0.15) return "medium";
  return "low";
}

export function restoreBand(ms: number): DoraBand {
  if (ms < HOUR) return "elite";
  if (ms < DAY) return "high";
  if (ms < 7 * DAY) return "medium";
  return "low";
}

/** The middle value (the mean of the middle two for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A release of one service that reached an outcome. */
export interface DoraRelease {
  id: string;
  kind: "deploy" | "restart" | "rollback" | "promote";
  outcome: "succeeded" | "failed";
  createdAt: Date;
  /** When it went live (succeeded) or gave up (failed). */
  finishedAt: Date;
  /** When its image was built; null when the worker could not tell. */
  imageCreatedAt: Date | null;
}

/** A crash loop's start or end, from `service_event`. */
export interface DoraEvent {
  kind: "crash_loop_started" | "crash_loop_ended";
  at: Date;
}

/** What one service contributes; pooled across services for an environment or the fleet. */
export interface DoraSamples {
  /** Releases that reached an outcome. */
  releases: number;
  /** Changes that went live: succeeded deploys and promotions (a restart or rollback ships no change). */
  deploys: number;
  /** Per change that went live with a known image time: from the image's creation to going live. */
  leadTimesMs: number[];
  /** Failed releases plus succeeded ones rolled back within the hour. */
  failedChanges: number;
  /** Per closed incident: from a failed release or a crash loop's start to the next succeeded release or the loop's end. */
  restoresMs: number[];
  /** An incident still open at the end of the data. */
  openIncident: boolean;
}

const isChange = (r: DoraRelease) => r.kind === "deploy" || r.kind === "promote";

/** The samples of one service, from its releases and crash-loop events (in any order). */
export function serviceSamples(releases: readonly DoraRelease[], events: readonly DoraEvent[]): DoraSamples {
  const byFinish = [...releases].sort((a, b) => a.finishedAt.getTime() - b.finishedAt.getTime());
  const live = byFinish.filter((r) => r.outcome === "succeeded" && isChange(r));
  const leadTimesMs = live.filter((r) => r.imageCreatedAt !== null).map((r) => Math.max(0, r.finishedAt.getTime() - r.imageCreatedAt!.getTime()));

  // A rollback requested within the hour after a release went live marks the latest such release.
  const rolledBack = new Set<string>();
  for (const rb of byFinish.filter((r) => r.kind === "rollback")) {
    const before = byFinish.filter((r) => r.outcome === "succeeded" && r.id !== rb.id && r.finishedAt.getTime() <= rb.createdAt.getTime()).at(-1);
    if (before && rb.createdAt.getTime() - before.finishedAt.getTime() <= ROLLBACK_MARKS_WITHIN_MS) rolledBack.add(before.id);
  }
  const failedChanges = byFinish.filter((r) => r.outcome === "failed" || rolledBack.has(r.id)).length;

  // Incidents: opened by a failed release or a crash loop's start, closed once neither holds. A
  // succeeded release ends both (its container replaced the crashing one); a loop's end only the loop.
  type Step = { at: number; what: "failed" | "succeeded" | "loop-start" | "loop-end" };
  const steps: Step[] = [
    ...byFinish.map((r): Step => ({ at: r.finishedAt.getTime(), what: r.outcome })),
    ...events.map((e): Step => ({ at: e.at.getTime(), what: e.kind === "crash_loop_started" ? "loop-start" : "loop-end" })),
  ].sort((a, b) => a.at - b.at);
  const restoresMs: number[] = [];
  let openedAt: number | null = null;
  let failing = false;
  let looping = false;
  for (const s of steps) {
    if (s.what === "failed") failing = true;
    else if (s.what === "loop-start") looping = true;
    else if (s.what === "loop-end") looping = false;
    else failing = looping = false;
    if ((failing || looping) && openedAt === null) openedAt = s.at;
    else if (!failing && !looping && openedAt !== null) {
      restoresMs.push(s.at - openedAt);
      openedAt = null;
    }
  }
  return { releases: releases.length, deploys: live.length, leadTimesMs, failedChanges, restoresMs, openIncident: openedAt !== null };
}

export interface DoraFigures {
  releases: number;
  deploys: number;
  deploysPerDay: number;
  frequencyBand: DoraBand;
  /** Median; null when no change with a known image time went live. */
  leadTimeMs: number | null;
  leadTimeBand: DoraBand | null;
  failedChanges: number;
  /** From 0 to 1; null when no release reached an outcome. */
  changeFailureRate: number | null;
  changeFailureBand: DoraBand | null;
  /** Median; null when no incident closed. */
  timeToRestoreMs: number | null;
  timeToRestoreBand: DoraBand | null;
  restores: number;
  openIncidents: number;
}

/** The figures of one service, one environment or the fleet: its services' samples pooled over a window of `windowDays`. */
export function doraFigures(samples: readonly DoraSamples[], windowDays: number): DoraFigures {
  const releases = sum(samples.map((s) => s.releases));
  const deploys = sum(samples.map((s) => s.deploys));
  const failedChanges = sum(samples.map((s) => s.failedChanges));
  const deploysPerDay = deploys / windowDays;
  const leadTimeMs = median(samples.flatMap((s) => s.leadTimesMs));
  const changeFailureRate = releases === 0 ? null : failedChanges / releases;
  const restores = samples.flatMap((s) => s.restoresMs);
  const timeToRestoreMs = median(restores);
  return {
    releases,
    deploys,
    deploysPerDay,
    frequencyBand: frequencyBand(deploysPerDay),
    leadTimeMs,
    leadTimeBand: leadTimeMs === null ? null : leadTimeBand(leadTimeMs),
    failedChanges,
    changeFailureRate,
    changeFailureBand: changeFailureRate === null ? null : changeFailureBand(changeFailureRate),
    timeToRestoreMs,
    timeToRestoreBand: timeToRestoreMs === null ? null : restoreBand(timeToRestoreMs),
    restores: restores.length,
    openIncidents: samples.filter((s) => s.openIncident).length,
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
