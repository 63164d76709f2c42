"use client";
import type { ContainerSampleView } from "@levelrail/services/metrics/containers";
import { type Point, formatBytes, latestAndPeak, linePath, networkRates } from "@/lib/container-metrics";
import type { Scoped } from "@/lib/paths";
import { useServiceMetrics } from "@/lib/queries";
import { Alert } from "./alert";

const HOUR_MS = 3_600_000;
/** A gap wider than this between samples breaks a line (the worker samples every 10 s by default). */
const MAX_GAP_MS = 60_000;

interface Series {
  name: string;
  points: Point[];
  className: string;
}

/**
 * The service's active container over the last hour, as the worker sampled it from the engine: CPU,
 * memory against its limit, and network in and out. SVG lines in the deploy chart's style; each
 * chart's text says the latest and highest figures.
 */
export function ServiceMetrics({ service }: { service: Scoped }) {
  const metrics = useServiceMetrics(service);
  const samples = metrics.data?.samples ?? [];
  const to = Date.now();
  const from = to - HOUR_MS;
  const at = (s: ContainerSampleView) => Date.parse(s.at);
  const cpu = samples.map((s) => ({ t: at(s), v: s.cpuPercent }));
  const memory = samples.map((s) => ({ t: at(s), v: s.memoryBytes }));
  const limits = samples.map((s) => ({ t: at(s), v: s.memoryLimitBytes }));
  const limit = latestAndPeak(limits).latest;
  const net = networkRates(samples);
  return (
    <section className="card" aria-labelledby="metrics-title">
      <h2 id="metrics-title">Resources (last hour)</h2>
      {metrics.isPending && <p className="muted">Loading…</p>}
      <Alert error={metrics.error} />
      {metrics.data && samples.length === 0 && <p className="muted">No samples yet: the worker samples the running container every few seconds.</p>}
      {samples.length > 0 && (
        <div className="metrics-grid">
          <Chart testId="metrics-cpu" title="CPU" unit={(v) => `${v.toFixed(1)}%`} from={from} to={to} series={[{ name: "CPU", points: cpu, className: "line-a" }]} />
          <Chart
            testId="metrics-memory"
            title={limit === null ? "Memory (no limit)" : `Memory (limit ${formatBytes(limit)})`}
            unit={formatBytes}
            from={from}
            to={to}
            series={[
              { name: "used", points: memory, className: "line-a" },
              { name: "limit", points: limits, className: "line-limit" },
            ]}
          />
          <Chart
            testId="metrics-network"
            title="Network"
            unit={(v) => `${formatBytes(v)}/s`}
            from={from}
            to={to}
            series={[
              { name: "in", points: net.rx, className: "line-a" },
              { name: "out", points: net.tx, className: "line-b" },
            ]}
          />
        </div>
      )}
    </section>
  );
}

function Chart({ testId, title, unit, from, to, series }: { testId: string; title: string; unit: (v: number) => string; from: number; to: number; series: Series[] }) {
  const width = 360;
  const height = 120;
  const left = 4;
  const top = 6;
  const bottom = 18;
  const plotH = height - top - bottom;
  const peaks = series.map((s) => latestAndPeak(s.points));
  const max = Math.max(1e-9, ...peaks.map((p) => p.peak ?? 0)) * 1.1;
  const x = (t: number) => left + ((t - from) / (to - from)) * (width - left - 4);
  const y = (v: number) => top + plotH - (Math.max(0, v) / max) * plotH;
  const text = series
    .map((s, i) => {
      const p = peaks[i]!;
      return `${s.name} ${p.latest === null ? "—" : unit(p.latest)}${p.peak === null || series.length > 1 ? "" : `, peak ${unit(p.peak)}`}`;
    })
    .join("; ");
  return (
    <figure className="metric" data-testid={testId}>
      <figcaption>
        <strong>{title}</strong> <span className="muted">{text}</span>
      </figcaption>
      <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title} over the last hour: ${text}`}>
        <g className="chart-axis">
          <line x1={left} x2={width - 4} y1={y(0)} y2={y(0)} />
          <text x={left} y={height - 4} className="chart-label">
            1 h ago
          </text>
          <text x={width - 4} y={height - 4} textAnchor="end" className="chart-label">
            now
          </text>
          <text x={width - 4} y={top + 10} textAnchor="end" className="chart-label">
            {unit(max / 1.1)}
          </text>
        </g>
        {series.map((s) => (
          <path key={s.name} d={linePath(s.points, x, y, MAX_GAP_MS)} className={s.className} fill="none" />
        ))}
      </svg>
    </figure>
  );
}
