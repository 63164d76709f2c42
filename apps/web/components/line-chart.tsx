"use client";
import { type PointerEvent, useState } from "react";
import { PLOT_HEIGHT, PLOT_WIDTH, linear, nearestPoint, niceMax, timeAt } from "@/lib/chart";
import { type Point, latestAndPeak, linePath } from "@/lib/container-metrics";

export interface Series {
  name: string;
  points: Point[];
  className: string;
}

const clock = (t: number) => new Date(t).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit" });

/**
 * Lines over a time range. The SVG only draws (stretched to its box, strokes that do not scale);
 * every word is HTML at the page's text size: the title and latest figures above, the value axis's
 * top at the left, the time axis below, and under the pointer (or a finger) a rule with each
 * series' value at that moment.
 */
export function LineChart({
  testId,
  title,
  unit,
  from,
  to,
  series,
  maxGapMs,
  axis,
}: {
  testId: string;
  title: string;
  unit: (v: number) => string;
  from: number;
  to: number;
  series: Series[];
  maxGapMs: number;
  /** The labels under the time axis, left and right: "1 h ago", "now". */
  axis: [string, string];
}) {
  const [hover, setHover] = useState<number | null>(null);
  const peaks = series.map((s) => latestAndPeak(s.points));
  const top = niceMax(Math.max(0, ...peaks.map((p) => p.peak ?? 0)));
  const x = linear([from, to], [0, PLOT_WIDTH]);
  const y = linear([0, top], [PLOT_HEIGHT, 0]);
  // A series with no value at all (no memory limit) is left out of the words; its line is empty too.
  const summary = series
    .map((s, i) => ({ s, p: peaks[i]! }))
    .filter(({ p }, i) => p.latest !== null || (i === 0 && series.length === 1))
    .map(({ s, p }) => `${s.name} ${p.latest === null ? "—" : unit(p.latest)}${p.peak === null || series.length > 1 ? "" : `, peak ${unit(p.peak)}`}`)
    .join("; ");
  const under = hover === null ? [] : series.map((s) => ({ s, p: nearestPoint(s.points, hover, maxGapMs) }));

  function move(e: PointerEvent<HTMLDivElement>) {
    const box = e.currentTarget.getBoundingClientRect();
    setHover(timeAt(e.clientX, box.left, box.width, from, to));
  }

  return (
    <figure className="metric" data-testid={testId}>
      <figcaption>
        <strong>{title}</strong> <span className="muted">{summary}</span>
      </figcaption>
      <div className="plot-frame">
        <span className="chart-label plot-max">{unit(top)}</span>
        <div className="plot" onPointerMove={move} onPointerDown={move} onPointerLeave={() => setHover(null)}>
          <svg viewBox={`0 0 ${PLOT_WIDTH} ${PLOT_HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={`${title}: ${summary}`}>
            <line className="plot-grid" x1={0} x2={PLOT_WIDTH} y1={PLOT_HEIGHT} y2={PLOT_HEIGHT} />
            <line className="plot-grid" x1={0} x2={PLOT_WIDTH} y1={0} y2={0} />
            {series.map((s) => (
              <path key={s.name} d={linePath(s.points, x, y, maxGapMs)} className={s.className} fill="none" data-series={s.name} />
            ))}
          </svg>
          {hover !== null && (
            <>
              <span className="plot-rule" style={{ left: `${(x(hover) / PLOT_WIDTH) * 100}%` }} aria-hidden="true" />
              <span className={`plot-tip ${x(hover) > PLOT_WIDTH / 2 ? "tip-left" : ""}`} role="status" data-testid={`${testId}-value`}>
                <span className="muted">{clock(hover)}</span>
                {under.map(({ s, p }) => (
                  <span key={s.name}>
                    <span className={`swatch swatch-${s.className}`} aria-hidden="true" /> {s.name} {p === null ? "—" : unit(p.v)}
                  </span>
                ))}
              </span>
            </>
          )}
        </div>
        <div className="plot-axis chart-label">
          <span>{axis[0]}</span>
          <span>{axis[1]}</span>
        </div>
      </div>
    </figure>
  );
}
