import type { DayBucket } from "@levelrail/services/metrics/deploys";
import { PLOT_HEIGHT, PLOT_WIDTH } from "@/lib/chart";

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One line for screen readers and tooltips. */
export function daySummary(d: DayBucket): string {
  return `${d.day}: ${plural(d.deploys, "deploy", "deploys")}, ${d.failed} failed`;
}

/**
 * Deploys per day as stacked bars (deployed below, failed above). The SVG only draws, stretched to
 * its box; the labels (the count axis's top, every few days) are HTML at the page's text size. The
 * image has a text summary, each day's bar its numbers on hover; the exact numbers are in the
 * table that accompanies every chart.
 */
export function DeployChart({ days, label, compact = false }: { days: readonly DayBucket[]; label: string; compact?: boolean }) {
  const width = PLOT_WIDTH;
  const height = PLOT_HEIGHT;
  const max = Math.max(1, ...days.map((d) => d.deploys + d.failed));
  const step = width / Math.max(1, days.length);
  const bar = Math.max(1, step * 0.72);
  const y = (v: number) => height - (v / max) * height;
  const labelEvery = Math.max(1, Math.ceil(days.length / (compact ? 1 : 8)));
  // Every few days and the last one, never two labels crowded together at the end.
  const lastIndex = days.length - 1;
  const showLabel = (i: number) => i === lastIndex || (i % labelEvery === 0 && lastIndex - i >= Math.max(1, labelEvery / 2));
  // A narrow chart shows every other label, and none close before the last (labels there are wider than the bars).
  const dayClass = (i: number) => (i === lastIndex ? "day-last" : (i / labelEvery) % 2 === 1 || lastIndex - i < labelEvery * 1.5 ? "day-minor" : undefined);
  const deploys = days.reduce((n, d) => n + d.deploys, 0);
  const failed = days.reduce((n, d) => n + d.failed, 0);
  const busiest = days.reduce<DayBucket | null>((b, d) => (d.deploys + d.failed > (b ? b.deploys + b.failed : 0) ? d : b), null);
  const first = days[0]?.day;
  const last = days[days.length - 1]?.day;
  const summary = `${label}: ${plural(deploys, "deploy", "deploys")} and ${failed} failed from ${first ?? "—"} to ${last ?? "—"}${
    busiest ? `; busiest day ${busiest.day} with ${busiest.deploys + busiest.failed}` : ""
  }.`;
  const svg = (
    <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={summary}>
      {!compact && <line className="plot-grid" x1={0} x2={width} y1={0} y2={0} />}
      <line className="plot-grid" x1={0} x2={width} y1={height} y2={height} />
      {days.map((d, i) => {
        const x = i * step + (step - bar) / 2;
        return (
          <g key={d.day}>
            <title>{daySummary(d)}</title>
            {/* A transparent full-height hit area, so the tooltip shows on empty days too. */}
            <rect x={i * step} y={0} width={step} height={height} className="chart-hit" />
            {d.deploys > 0 && <rect x={x} y={y(d.deploys)} width={bar} height={y(0) - y(d.deploys)} className="bar-ok" />}
            {d.failed > 0 && <rect x={x} y={y(d.deploys + d.failed)} width={bar} height={y(d.deploys) - y(d.deploys + d.failed)} className="bar-failed" />}
          </g>
        );
      })}
    </svg>
  );
  if (compact) return <div className="plot plot-compact">{svg}</div>;
  return (
    <div className="plot-frame" data-testid="deploy-chart">
      <span className="chart-label plot-max">{max}</span>
      <div className="plot plot-bars">{svg}</div>
      <div className="plot-axis plot-days chart-label">
        {days.map((d, i) =>
          showLabel(i) ? (
            <span
              key={d.day}
              className={dayClass(i)}
              style={i === lastIndex ? undefined : { left: `${((i + 0.5) / days.length) * 100}%` }}
            >
              {d.day.slice(5)}
            </span>
          ) : null,
        )}
      </div>
    </div>
  );
}
