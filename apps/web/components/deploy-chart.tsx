import type { DayBucket } from "@levelrail/services/metrics/deploys";

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

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One line for screen readers and tooltips. */
export function daySummary(d: DayBucket): string {
  return `${d.day}: ${plural(d.deploys, "deploy", "deploys")}, ${d.failed} failed`;
}

/**
 * Deploys per day as stacked bars (deployed below, failed above), drawn as
 * SVG. The image has a text summary; the exact numbers are in the table that
 * accompanies every chart.
 */
export function DeployChart({ days, label, compact = false }: { days: readonly DayBucket[]; label: string; compact?: boolean }) {
  const width = compact ? 240 : 720;
  const height = compact ? 40 : 180;
  const left = compact ? 0 : 32;
  const bottom = compact ? 0 : 22;
  const top = compact ? 2 : 10;
  const plotW = width - left - 4;
  const plotH = height - top - bottom;
  const max = Math.max(1, ...days.map((d) => d.deploys + d.failed));
  const step = plotW / Math.max(1, days.length);
  const bar = Math.max(1, step * 0.72);
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const ticks = max >= 4 ? [0, Math.round(max / 2), max] : [0, max];
  const labelEvery = Math.max(1, Math.ceil(days.length / 8));
  // Every few days and the last one, never two labels crowded together at the end.
  const lastIndex = days.length - 1;
  const showLabel = (i: number) => i === lastIndex || (i % labelEvery === 0 && lastIndex - i >= Math.max(1, labelEvery / 2));
  const deploys = days.reduce((n, d) => n + d.deploys, 0);
  const failed = days.reduce((n, d) => n + d.failed, 0);
  const busiest = days.reduce<DayBucket | null>((b, d) => (d.deploys + d.failed > (b ? b.deploys + b.failed : 0) ? d : b), null);
  const first = days[0]?.day;
  const last = days[days.length - 1]?.day;
  const summary = `${label}: ${plural(deploys, "deploy", "deploys")} and ${failed} failed from ${first ?? "—"} to ${last ?? "—"}${
    busiest ? `; busiest day ${busiest.day} with ${busiest.deploys + busiest.failed}` : ""
  }.`;
  return (
    <svg className={compact ? "chart chart-compact" : "chart"} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary}>
      {!compact &&
        ticks.map((t) => (
          <g key={t} className="chart-axis">
            <line x1={left} x2={width - 4} y1={y(t)} y2={y(t)} />
            <text x={left - 6} y={y(t) + 4} textAnchor="end">
              {t}
            </text>
          </g>
        ))}
      {days.map((d, i) => {
        const x = left + i * step + (step - bar) / 2;
        return (
          <g key={d.day}>
            <title>{daySummary(d)}</title>
            {/* A transparent full-height hit area, so the tooltip shows on empty days too. */}
            <rect x={left + i * step} y={top} width={step} height={plotH} className="chart-hit" />
            {d.deploys > 0 && <rect x={x} y={y(d.deploys)} width={bar} height={y(0) - y(d.deploys)} className="bar-ok" />}
            {d.failed > 0 && <rect x={x} y={y(d.deploys + d.failed)} width={bar} height={y(d.deploys) - y(d.deploys + d.failed)} className="bar-failed" />}
            {!compact && showLabel(i) && (
              <text
                x={i === lastIndex ? width - 4 : left + i * step + step / 2}
                y={height - 6}
                textAnchor={i === lastIndex ? "end" : "middle"}
                className="chart-label"
              >
                {d.day.slice(5)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
