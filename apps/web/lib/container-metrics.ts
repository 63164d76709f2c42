import type { ContainerSampleView } from "@levelrail/services/metrics/containers";

/** One point of a chart: time (ms since epoch) and value; null breaks the line (no sample, a new container). */
export interface Point {
  t: number;
  v: number | null;
}

/** A service's figures over time: per sampling round, the sum over its containers (on a swarm, its tasks). */
export interface ServiceSeries {
  cpu: Point[];
  memory: Point[];
  /** Null where any container has no limit. */
  limits: Point[];
  rx: Point[];
  tx: Point[];
  /** The most containers sampled in one round (a swarm release's tasks). */
  containers: number;
}

/**
 * Pure: the samples (oldest first; one per container per round, a round's share one `at`) as the
 * service's totals per round. Network rates are each container's own between its consecutive
 * samples (counters are per container), then summed; a round where no container has one is a gap.
 */
export function serviceSeries(samples: readonly ContainerSampleView[]): ServiceSeries {
  const out: ServiceSeries = { cpu: [], memory: [], limits: [], rx: [], tx: [], containers: 0 };
  const last = new Map<string, ContainerSampleView>();
  for (let i = 0; i < samples.length; ) {
    const at = samples[i]!.at;
    let j = i;
    let cpu = 0;
    let memory = 0;
    let limit: number | null = 0;
    let rx: number | null = null;
    let tx: number | null = null;
    for (; j < samples.length && samples[j]!.at === at; j++) {
      const s = samples[j]!;
      cpu += s.cpuPercent;
      memory += s.memoryBytes;
      limit = limit === null || s.memoryLimitBytes === null ? null : limit + s.memoryLimitBytes;
      const prev = last.get(s.container);
      const seconds = prev ? (Date.parse(s.at) - Date.parse(prev.at)) / 1000 : 0;
      if (prev && seconds > 0 && s.netRxBytes >= prev.netRxBytes && s.netTxBytes >= prev.netTxBytes) {
        rx = (rx ?? 0) + (s.netRxBytes - prev.netRxBytes) / seconds;
        tx = (tx ?? 0) + (s.netTxBytes - prev.netTxBytes) / seconds;
      }
      last.set(s.container, s);
    }
    const t = Date.parse(at);
    out.cpu.push({ t, v: cpu });
    out.memory.push({ t, v: memory });
    out.limits.push({ t, v: limit });
    out.rx.push({ t, v: rx });
    out.tx.push({ t, v: tx });
    out.containers = Math.max(out.containers, j - i);
    i = j;
  }
  return out;
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
