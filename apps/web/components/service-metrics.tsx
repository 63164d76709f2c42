"use client";
import type { ContainerSampleView } from "@levelrail/services/metrics/containers";
import { agoLabel, endLabel, timeRange } from "@/lib/chart";
import { formatBytes, latestAndPeak, serviceSeries } from "@/lib/container-metrics";
import type { Scoped } from "@/lib/paths";
import { useServiceMetrics } from "@/lib/service-queries";
import { LineChart } from "./line-chart";
import { Alert } from "./alert";

const HOUR_MS = 3_600_000;
/** A gap wider than this between samples breaks a line (the worker samples every 10 s by default). */
const MAX_GAP_MS = 60_000;
/** The shortest span a chart draws: a container sampled twice still gets a readable line. */
const MIN_SPAN_MS = 10_000;

/**
 * The service's active container (on a swarm, its tasks summed) over the last hour, as the worker sampled it: CPU,
 * memory against its limit, and network in and out (`LineChart`); each chart's text says the
 * latest and highest figures, and the value under the pointer.
 */
export function ServiceMetrics({ service }: { service: Scoped }) {
  const metrics = useServiceMetrics(service);
  const samples = metrics.data?.samples ?? [];
  const at = (s: ContainerSampleView) => Date.parse(s.at);
  const first = samples[0];
  const last = samples[samples.length - 1];
  const now = Date.now();
  const { from, to } = timeRange(first && last ? { first: at(first), last: at(last) } : null, now, HOUR_MS, MIN_SPAN_MS);
  const axis: [string, string] = [agoLabel(now - from), endLabel(to, now, MAX_GAP_MS)];
  // One line per figure: a swarm release's tasks summed per round.
  const { cpu, memory, limits, rx, tx, containers } = serviceSeries(samples);
  const limit = latestAndPeak(limits).latest;
  return (
    <section className="card" aria-labelledby="metrics-title">
      <h2 id="metrics-title">Resources (last hour{containers > 1 ? `, ${containers} tasks together` : ""})</h2>
      {metrics.isPending && <p className="muted">Loading…</p>}
      <Alert error={metrics.error} />
      {metrics.data && samples.length === 0 && <p className="muted">No samples yet: the worker samples the running container every few seconds.</p>}
      {samples.length > 0 && (
        <div className="metrics-grid">
          <LineChart testId="metrics-cpu" title="CPU" unit={(v) => `${v.toFixed(1)}%`} from={from}
            maxGapMs={MAX_GAP_MS}
            axis={axis} to={to} series={[{ name: "CPU", points: cpu, className: "line-a" }]} />
          <LineChart
            testId="metrics-memory"
            title={limit === null ? "Memory (no limit)" : `Memory (limit ${formatBytes(limit)})`}
            unit={formatBytes}
            from={from}
            maxGapMs={MAX_GAP_MS}
            axis={axis}
            to={to}
            series={[
              { name: "used", points: memory, className: "line-a" },
              { name: "limit", points: limits, className: "line-limit" },
            ]}
          />
          <LineChart
            testId="metrics-network"
            title="Network"
            unit={(v) => `${formatBytes(v)}/s`}
            from={from}
            maxGapMs={MAX_GAP_MS}
            axis={axis}
            to={to}
            series={[
              { name: "in", points: rx, className: "line-a" },
              { name: "out", points: tx, className: "line-b" },
            ]}
          />
        </div>
      )}
    </section>
  );
}
