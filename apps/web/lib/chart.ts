import type { DayBucket } from "@levelrail/services/metrics/deploys";
import type { Point } from "./container-metrics";

/**
 * The drawing space of every line chart: the SVG's viewBox is this wide and high and is stretched
 * to the chart's box (`preserveAspectRatio="none"`), so a line fills any width; its strokes do not
 * scale (`vector-effect: non-scaling-stroke`) and its text is HTML around it, at the page's size.
 */
export const PLOT_WIDTH = 1000;
export const PLOT_HEIGHT = 100;

/** A linear map from `domain` onto `range`; an empty domain maps everything to the range's start. */
export function linear([d0, d1]: readonly [number, number], [r0, r1]: readonly [number, number]): (v: number) => number {
  const span = d1 - d0;
  return (v) => (span === 0 ? r0 : r0 + ((v - d0) / span) * (r1 - r0));
}

/**
 * The top of a value axis: a little above the highest value, rounded up to 1, 2 or 5 times a power
 * of ten (9.2 → 10, 130 → 200), so the line never touches the top and the label reads round.
 */
export function niceMax(peak: number): number {
  if (!(peak > 0) || !Number.isFinite(peak)) return 1;
  const raised = peak * 1.05;
  const power = 10 ** Math.floor(Math.log10(raised));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * power >= raised) ?? 10;
  return step * power;
}

/** The point with a value nearest in time to `t`, or null when there is none within `maxGapMs`. */
export function nearestPoint(points: readonly Point[], t: number, maxGapMs: number): (Point & { v: number }) | null {
  let best: (Point & { v: number }) | null = null;
  for (const p of points) {
    if (p.v === null) continue;
    if (best === null || Math.abs(p.t - t) < Math.abs(best.t - t)) best = { t: p.t, v: p.v };
  }
  return best !== null && Math.abs(best.t - t) <= maxGapMs ? best : null;
}

/** The time under a pointer at `clientX` over a box from `left` that is `width` wide, for a chart from `from` to `to`. */
export function timeAt(clientX: number, left: number, width: number, from: number, to: number): number {
  const f = width > 0 ? Math.min(1, Math.max(0, (clientX - left) / width)) : 0;
  return from + f * (to - from);
}

/** How many points a path's `d` draws (every M and L), for tests and for "is there a line at all". */
export const pathPoints = (d: string): number => (d.match(/[ML]/g) ?? []).length;

/**
 * The time range a chart of the last `windowMs` draws: from its first sample to its last, so a young
 * container's few samples fill the width instead of a sliver at the right end; at most `windowMs`
 * back from `now` and at least `minMs` wide. Without samples: the whole window up to `now`.
 */
export function timeRange(samples: { first: number; last: number } | null, now: number, windowMs: number, minMs: number): { from: number; to: number } {
  if (samples === null) return { from: now - windowMs, to: now };
  const to = Math.min(now, samples.last);
  const from = Math.max(now - windowMs, Math.min(samples.first, to - minMs));
  return { from, to };
}

/** What the right end of the time axis says: "now", unless the last sample is older than `staleMs`. */
export const endLabel = (to: number, now: number, staleMs: number): string => (now - to <= staleMs ? "now" : agoLabel(now - to));

/** How long ago the left end of a chart is, as its axis says: "1 h ago", "12 min ago", "40 s ago". */
export function agoLabel(ms: number): string {
  if (ms >= 3_600_000 - 30_000) return `${Math.round(ms / 3_600_000)} h ago`;
  if (ms >= 90_000) return `${Math.round(ms / 60_000)} min ago`;
  return `${Math.round(ms / 1000)} s ago`;
}

const DAY_MS = 24 * 3600 * 1000;

/** Every day from `since` to `until` (UTC, inclusive) with its bucket, zero where nothing was deployed. */
export function fillDays(buckets: readonly DayBucket[], since: string, until: Date): DayBucket[] {
  const byDay = new Map(buckets.map((b) => [b.day, b]));
  const out: DayBucket[] = [];
  const start = Date.parse(`${since.slice(0, 10)}T00:00:00Z`);
  const end = Date.UTC(until.getUTCFullYear(), until.getUTCMonth(), until.getUTCDate());
  for (let t = start; t <= end; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? { day, deploys: 0, failed: 0, meanDurationMs: null });
  }
  return out;
}
