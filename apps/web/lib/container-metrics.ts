import type { ContainerSampleView } from "@levelrail/services/metrics/containers";

/** One point of a chart: time (ms since epoch) and value; null breaks the line (no sample, a new container). */
export interface Point {
  t: number;
  v: number | null;
}

/**
 * Network rates (bytes per second) between consecutive samples of the same container: the engine's
 * counters are cumulative since the container started, so a new container (or counters that went
 * back) starts a new line instead of a negative rate.
 */
export function networkRates(samples: readonly ContainerSampleView[]): { rx: Point[]; tx: Point[] } {
  const rx: Point[] = [];
  const tx: Point[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    const t = Date.parse(b.at);
    const seconds = (t - Date.parse(a.at)) / 1000;
    const same = a.container === b.container && b.netRxBytes >= a.netRxBytes && b.netTxBytes >= a.netTxBytes && seconds > 0;
    rx.push({ t, v: same ? (b.netRxBytes - a.netRxBytes) / seconds : null });
    tx.push({ t, v: same ? (b.netTxBytes - a.netTxBytes) / seconds : null });
  }
  return { rx, tx };
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

/** Bytes as people read them: 1.5 MiB. */
export function formatBytes(n: number): string {
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? Math.round(v) : v.toFixed(v < 10 ? 1 : 0)} ${UNITS[u]}`;
}

/** A figure's summary for the chart's text: latest and highest. */
export function latestAndPeak(points: readonly Point[]): { latest: number | null; peak: number | null } {
  let latest: number | null = null;
  let peak: number | null = null;
  for (const p of points) {
    if (p.v === null) continue;
    latest = p.v;
    peak = peak === null ? p.v : Math.max(peak, p.v);
  }
  return { latest, peak };
}

/**
 * The SVG path of a line through `points` over the time range, breaking at nulls and at gaps longer
 * than `maxGapMs` (the worker was not sampling, or no container ran).
 */
export function linePath(points: readonly Point[], x: (t: number) => number, y: (v: number) => number, maxGapMs: number): string {
  let d = "";
  let prev: number | null = null;
  for (const p of points) {
    if (p.v === null) {
      prev = null;
      continue;
    }
    const move = prev === null || p.t - prev > maxGapMs;
    d += `${move ? "M" : "L"}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`;
    prev = p.t;
  }
  return d;
}
