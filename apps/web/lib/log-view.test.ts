import { describe, expect, it } from "vitest";
import { type LogRow, appendCapped, logStreamUrl, visibleRows } from "./log-view";

const row = (seq: number, text: string, kind: LogRow["kind"] = "line"): LogRow => ({ seq, kind, container: "c", stream: "stdout", at: "", text });

describe("the Logs view's rows", () => {
  it("keeps the newest rows up to the cap", () => {
    const rows = appendCapped([row(1, "a"), row(2, "b")], [row(3, "c"), row(4, "d")], 3);
    expect(rows.map((r) => r.seq)).toEqual([2, 3, 4]);
  });

  it("renders the last matching rows, markers always", () => {
    const rows = [row(1, "GET /a"), row(2, "switched", "marker"), row(3, "post /b"), row(4, "GET /c")];
    expect(visibleRows(rows, "get", 10)).toEqual({ rows: [rows[0], rows[1], rows[3]], matched: 3 });
    expect(visibleRows(rows, "", 2)).toEqual({ rows: [rows[2], rows[3]], matched: 4 });
  });

  it("builds the stream URL: since, a picked container, or a resume point", () => {
    const s = { environmentId: "e1", name: "web" };
    expect(logStreamUrl(s, { container: "", since: "", resumeAt: null })).toBe("/api/v1/environments/e1/services/web/logs?follow=true");
    expect(logStreamUrl(s, { container: "lr-web-1", since: "10m", resumeAt: null })).toBe("/api/v1/environments/e1/services/web/logs?follow=true&container=lr-web-1&since=10m&tail=10000");
    expect(logStreamUrl(s, { container: "", since: "10m", resumeAt: "2026-01-01T00:00:00.000000001Z" })).toContain("since=2026-01-01T00%3A00%3A00.000000001Z");
  });
});
