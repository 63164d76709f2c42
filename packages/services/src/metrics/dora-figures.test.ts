import { describe, expect, it } from "vitest";
import {
  type DoraEvent,
  type DoraRelease,
  changeFailureBand,
  doraFigures,
  frequencyBand,
  leadTimeBand,
  median,
  restoreBand,
  serviceSamples,
} from "./dora-figures";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.parse("2026-11-01T00:00:00Z");
const at = (ms: number) => new Date(T0 + ms);

let n = 0;
/** A release that finished `finish` after T0, created a minute before; its image built `built` after T0. */
function rel(kind: DoraRelease["kind"], outcome: DoraRelease["outcome"], finish: number, built: number | null = null): DoraRelease {
  return { id: `r${++n}`, kind, outcome, createdAt: at(finish - MIN), finishedAt: at(finish), imageCreatedAt: built === null ? null : at(built) };
}
const loop = (kind: DoraEvent["kind"], t: number): DoraEvent => ({ kind, at: at(t) });

describe("bands (2023 Accelerate State of DevOps clusters)", () => {
  it.each([
    [3, "elite"],
    [1.01, "elite"],
    [1, "high"],
    [1 / 7, "high"],
    [1 / 8, "medium"],
    [1 / 30, "medium"],
    [1 / 31, "low"],
    [0, "low"],
  ] as const)("deployment frequency %f/day is %s", (perDay, band) => expect(frequencyBand(perDay)).toBe(band));

  it.each([
    [0, "elite"],
    [DAY - 1, "elite"],
    [DAY, "high"],
    [7 * DAY - 1, "high"],
    [7 * DAY, "medium"],
    [30 * DAY - 1, "medium"],
    [30 * DAY, "low"],
  ] as const)("lead time %d ms is %s", (ms, band) => expect(leadTimeBand(ms)).toBe(band));

  it.each([
    [0, "elite"],
    [0.05, "elite"],
    [0.051, "high"],
    [0.1, "high"],
    [0.15, "medium"],
    [0.16, "low"],
    [1, "low"],
  ] as const)("change failure rate %f is %s", (rate, band) => expect(changeFailureBand(rate)).toBe(band));

  it.each([
    [59 * MIN, "elite"],
    [HOUR, "high"],
    [DAY - 1, "high"],
    [DAY, "medium"],
    [7 * DAY - 1, "medium"],
    [7 * DAY, "low"],
  ] as const)("time to restore %d ms is %s", (ms, band) => expect(restoreBand(ms)).toBe(band));
});

describe("median", () => {
  it.each([
    [[], null],
    [[5], 5],
    [[9, 1, 5], 5],
    [[4, 1, 3, 2], 2.5],
  ] as const)("of %j is %s", (xs, m) => expect(median(xs)).toBe(m));
});

describe("serviceSamples", () => {
  it("no releases: nothing counted, no incident", () => {
    expect(serviceSamples([], [])).toEqual({ releases: 0, deploys: 0, leadTimesMs: [], failedChanges: 0, restoresMs: [], openIncident: false });
  });

  it("all failed: every release a failed change, one incident still open", () => {
    const s = serviceSamples([rel("deploy", "failed", HOUR), rel("deploy", "failed", 2 * HOUR), rel("rollback", "failed", 3 * HOUR)], []);
    expect(s).toMatchObject({ releases: 3, deploys: 0, failedChanges: 3, restoresMs: [], openIncident: true });
  });

  it("lead time runs from the image's creation to going live; only changes with a known image time count", () => {
    const s = serviceSamples(
      [
        rel("deploy", "succeeded", 3 * HOUR, HOUR), // 2 h
        rel("promote", "succeeded", DAY, 0), // 1 day
        rel("deploy", "succeeded", 2 * DAY, null), // unknown image time
        rel("restart", "succeeded", 3 * DAY, 0), // no change
        rel("rollback", "succeeded", 4 * DAY, 0), // no change
        rel("deploy", "failed", 5 * DAY, 0), // never went live
        rel("deploy", "succeeded", 6 * DAY, 6 * DAY + HOUR), // built "after" it went live (clock skew): 0
      ],
      [],
    );
    expect(s.deploys).toBe(4);
    expect(s.leadTimesMs).toEqual([2 * HOUR, DAY, 0]);
  });

  it.each([
    ["within the hour marks the release it rolled back", 59 * MIN, 2],
    ["exactly an hour later still marks it", HOUR, 2],
    ["after the hour marks nothing", 2 * HOUR, 1],
  ])("a rollback requested %s", (_, after, failed) => {
    const good = rel("deploy", "succeeded", DAY);
    const bad = rel("deploy", "succeeded", 2 * DAY);
    const rb: DoraRelease = { id: "rb", kind: "rollback", outcome: "succeeded", createdAt: at(2 * DAY + after), finishedAt: at(2 * DAY + after + MIN), imageCreatedAt: null };
    const other = rel("deploy", "failed", 3 * DAY);
    const s = serviceSamples([rb, other, bad, good], []);
    expect(s.releases).toBe(4);
    expect(s.failedChanges).toBe(failed);
  });

  it("a failed release is restored by the next succeeded one; consecutive failures are one incident", () => {
    const s = serviceSamples(
      [rel("deploy", "succeeded", 0), rel("deploy", "failed", HOUR), rel("deploy", "failed", 2 * HOUR), rel("deploy", "succeeded", 4 * HOUR), rel("deploy", "failed", DAY), rel("rollback", "succeeded", DAY + 10 * MIN)],
      [],
    );
    expect(s.restoresMs).toEqual([3 * HOUR, 10 * MIN]);
    expect(s.openIncident).toBe(false);
  });

  it.each([
    ["ends with the loop", [loop("crash_loop_started", HOUR), loop("crash_loop_ended", HOUR + 20 * MIN)], [], [20 * MIN], false],
    ["ends with a succeeded release first", [loop("crash_loop_started", HOUR), loop("crash_loop_ended", 5 * HOUR)], [rel("deploy", "succeeded", 2 * HOUR)], [HOUR], false],
    ["a failed release during the loop waits for a success, not the loop's end", [loop("crash_loop_started", HOUR), loop("crash_loop_ended", 2 * HOUR)], [rel("deploy", "failed", HOUR + MIN), rel("deploy", "succeeded", 3 * HOUR)], [2 * HOUR], false],
    ["a repeated start is the same loop", [loop("crash_loop_started", HOUR), loop("crash_loop_started", 2 * HOUR), loop("crash_loop_ended", 3 * HOUR)], [], [2 * HOUR], false],
    ["still looping", [loop("crash_loop_started", HOUR)], [], [], true],
  ] as const)("a crash loop %s", (_, events, releases, restores, open) => {
    const s = serviceSamples(releases, events);
    expect(s.restoresMs).toEqual(restores);
    expect(s.openIncident).toBe(open);
  });
});

describe("doraFigures", () => {
  it("no releases: frequency low, every other figure unknown", () => {
    expect(doraFigures([serviceSamples([], [])], 30)).toEqual({
      releases: 0,
      deploys: 0,
      deploysPerDay: 0,
      frequencyBand: "low",
      leadTimeMs: null,
      leadTimeBand: null,
      failedChanges: 0,
      changeFailureRate: null,
      changeFailureBand: null,
      timeToRestoreMs: null,
      timeToRestoreBand: null,
      restores: 0,
      openIncidents: 0,
    });
  });

  it("pools services: medians over every sample, rates over every release", () => {
    const a = serviceSamples([rel("deploy", "succeeded", HOUR, 0), rel("deploy", "failed", 2 * HOUR), rel("deploy", "succeeded", 2 * HOUR + 30 * MIN, HOUR)], []);
    const b = serviceSamples(
      [rel("deploy", "succeeded", 3 * DAY, 0), ...Array.from({ length: 6 }, (_, i) => rel("restart", "succeeded", 4 * DAY + i * HOUR))],
      [loop("crash_loop_started", 5 * DAY), loop("crash_loop_ended", 5 * DAY + 3 * HOUR)],
    );
    const f = doraFigures([a, b], 7);
    expect(f).toMatchObject({ releases: 10, deploys: 3, failedChanges: 1, restores: 2, openIncidents: 0 });
    expect(f.deploysPerDay).toBeCloseTo(3 / 7);
    expect(f.frequencyBand).toBe("high");
    // Lead times: 1 h, 1.5 h, 3 days → median 1.5 h.
    expect(f.leadTimeMs).toBe(1.5 * HOUR);
    expect(f.leadTimeBand).toBe("elite");
    expect(f.changeFailureRate).toBeCloseTo(0.1);
    expect(f.changeFailureBand).toBe("high");
    // Restores: 30 min and 3 h → 1 h 45 min.
    expect(f.timeToRestoreMs).toBe(105 * MIN);
    expect(f.timeToRestoreBand).toBe("high");
  });

  it("all failed: rate 100%, low", () => {
    const f = doraFigures([serviceSamples([rel("deploy", "failed", HOUR), rel("deploy", "failed", 2 * HOUR)], [])], 7);
    expect(f).toMatchObject({ changeFailureRate: 1, changeFailureBand: "low", openIncidents: 1, timeToRestoreMs: null, deploys: 0, frequencyBand: "low" });
  });
});
