import { describe, expect, it } from "vitest";
import { agoLabel, endLabel, fillDays, linear, nearestPoint, niceMax, pathPoints, timeAt, timeRange } from "./chart";
import { linePath } from "./container-metrics";

describe("linear", () => {
  it("maps the domain onto the range, inverted ranges too", () => {
    const y = linear([0, 10], [100, 0]);
    expect([y(0), y(5), y(10)]).toEqual([100, 50, 0]);
  });
  it("maps an empty domain to the range's start", () => {
    expect(linear([3, 3], [0, 1000])(3)).toBe(0);
  });
});

describe("niceMax", () => {
  it.each([
    [9.2, 10],
    [0.42, 0.5],
    [130, 200],
    [1, 2],
    [4.7, 5],
    [2.3, 2.5],
    [0, 1],
    [Number.NaN, 1],
  ])("%s → %s", (peak, max) => {
    expect(niceMax(peak)).toBeCloseTo(max, 10);
  });
  it("is always above the peak", () => {
    for (const v of [0.001, 0.07, 3, 99, 100, 12345]) expect(niceMax(v)).toBeGreaterThan(v);
  });
});

describe("nearestPoint", () => {
  const points = [
    { t: 0, v: 1 },
    { t: 10, v: null },
    { t: 20, v: 3 },
  ];
  it("picks the nearest point with a value", () => {
    expect(nearestPoint(points, 11, 100)).toEqual({ t: 20, v: 3 });
    expect(nearestPoint(points, 4, 100)).toEqual({ t: 0, v: 1 });
  });
  it("says nothing beyond the gap", () => {
    expect(nearestPoint(points, 60, 30)).toBeNull();
    expect(nearestPoint([], 0, 30)).toBeNull();
  });
});

describe("timeAt", () => {
  it("turns a pointer position into a time, clamped to the chart", () => {
    expect(timeAt(150, 100, 200, 0, 1000)).toBe(250);
    expect(timeAt(0, 100, 200, 0, 1000)).toBe(0);
    expect(timeAt(900, 100, 200, 0, 1000)).toBe(1000);
  });
});

describe("a line over the plot", () => {
  it("has a point per sample, in the plot's box", () => {
    const x = linear([0, 60_000], [0, 1000]);
    const y = linear([0, 10], [100, 0]);
    const d = linePath([{ t: 0, v: 0 }, { t: 30_000, v: 5 }, { t: 60_000, v: 10 }], x, y, 60_000);
    expect(d).toBe("M0.0,100.0L500.0,50.0L1000.0,0.0");
    expect(pathPoints(d)).toBe(3);
  });
});

describe("timeRange, agoLabel and endLabel", () => {
  const now = 10_000_000;
  it("spans a young container's samples, first to last, at least minMs wide", () => {
    expect(timeRange({ first: now - 300_000, last: now - 4_000 }, now, 3_600_000, 10_000)).toEqual({ from: now - 300_000, to: now - 4_000 });
    expect(timeRange({ first: now - 5_000, last: now - 3_000 }, now, 3_600_000, 10_000)).toEqual({ from: now - 13_000, to: now - 3_000 });
  });
  it("never reaches further back than the window, nor past now", () => {
    expect(timeRange({ first: now - 9_000_000, last: now + 5 }, now, 3_600_000, 10_000)).toEqual({ from: now - 3_600_000, to: now });
    expect(timeRange(null, now, 3_600_000, 10_000)).toEqual({ from: now - 3_600_000, to: now });
  });
  it.each([
    [3_600_000, "1 h ago"],
    [720_000, "12 min ago"],
    [60_000, "60 s ago"],
    [40_000, "40 s ago"],
  ])("%s ms → %s", (ms, text) => {
    expect(agoLabel(ms)).toBe(text);
  });
  it("ends at now while the samples are fresh", () => {
    expect(endLabel(now - 9_000, now, 60_000)).toBe("now");
    expect(endLabel(now - 600_000, now, 60_000)).toBe("10 min ago");
  });
});

describe("fillDays", () => {
  it("gives every UTC day from since to until its bucket, zero where nothing was deployed", () => {
    const b = { day: "2026-03-02", deploys: 3, failed: 1, meanDurationMs: 900 };
    expect(fillDays([b], "2026-03-01T10:00:00.000Z", new Date("2026-03-03T23:59:00Z"))).toEqual([
      { day: "2026-03-01", deploys: 0, failed: 0, meanDurationMs: null },
      b,
      { day: "2026-03-03", deploys: 0, failed: 0, meanDurationMs: null },
    ]);
  });
});
