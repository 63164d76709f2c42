import { describe, expect, it } from "vitest";
import { LevelrailError } from "@levelrail/spec/errors";
import { DEFAULT_TAIL, MAX_TAIL, parseLogQuery } from "./query";

const q = (s: string) => parseLogQuery(new URLSearchParams(s), Date.parse("2026-01-01T12:00:00Z"));
const field = (s: string) => {
  try {
    q(s);
  } catch (err) {
    if (err instanceof LevelrailError) return { code: err.code, field: err.field };
  }
  return null;
};

describe("parseLogQuery", () => {
  it("defaults: the active container's last lines, not followed", () => {
    expect(q("")).toEqual({ since: null, tail: DEFAULT_TAIL, container: null, follow: false });
  });

  it("reads durations and ISO times for since, keeping an engine time's nanoseconds", () => {
    expect(q("since=10m").since).toBe("2026-01-01T11:50:00.000Z");
    expect(q("since=2h").since).toBe("2026-01-01T10:00:00.000Z");
    expect(q("since=1d").since).toBe("2025-12-31T12:00:00.000Z");
    expect(q("since=2026-01-01T11:00:00Z").since).toBe("2026-01-01T11:00:00.000Z");
    expect(q("since=2026-01-01T11:00:00.123456789Z").since).toBe("2026-01-01T11:00:00.123456789Z");
  });

  it("bounds tail, and takes follow, container", () => {
    expect(q("tail=0").tail).toBe(0);
    expect(q(`tail=${MAX_TAIL}`).tail).toBe(MAX_TAIL);
    expect(q("tail=all").tail).toBe(MAX_TAIL);
    expect(q("follow=true&container=lr-web-abc").follow).toBe(true);
    expect(q("container=lr-web-abc-pre-deploy").container).toBe("lr-web-abc-pre-deploy");
  });

  it("refuses bad values with a 400 naming the field", () => {
    expect(field("since=yesterday")).toEqual({ code: "invalid_input", field: "since" });
    expect(field("since=10y")).toEqual({ code: "invalid_input", field: "since" });
    expect(field(`tail=${MAX_TAIL + 1}`)).toEqual({ code: "invalid_input", field: "tail" });
    expect(field("tail=-1")).toEqual({ code: "invalid_input", field: "tail" });
    expect(field("follow=yes")).toEqual({ code: "invalid_input", field: "follow" });
    expect(field("container=../etc")).toEqual({ code: "invalid_input", field: "container" });
  });
});
