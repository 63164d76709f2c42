import { describe, expect, it } from "vitest";
import { crashLoopEndedDetail, crashLoopStartedDetail, lastLines, lastLinesOf } from "./service-event";

describe("service event details", () => {
  it("keeps the last 20 lines, each at most 500 characters, and reads them back", () => {
    const out = `${Array.from({ length: 25 }, (_, i) => `l${i}`).join("\r\n")}\r\n${"x".repeat(600)}\n`;
    const lines = lastLines(out);
    expect(lines).toHaveLength(20);
    expect(lines[0]).toBe("l6");
    expect(lines.at(-1)).toBe(`${"x".repeat(500)}…`);
    const detail = crashLoopStartedDetail({ restarts: 4, lastExit: { code: 2, at: "2026-01-01T00:00:00.000Z" } }, lines);
    expect(detail.split("\n")[0]).toBe("crash loop started: 4 restarts; last exit code 2 at 2026-01-01T00:00:00.000Z");
    expect(lastLinesOf(detail)).toEqual(lines);
  });

  it("nothing printed, output withheld, and the end", () => {
    expect(crashLoopStartedDetail({ restarts: 1, lastExit: null }, [])).toBe("crash loop started: 1 restart\n(it printed nothing)");
    expect(lastLinesOf(crashLoopStartedDetail({ restarts: 3, lastExit: null }, ["a"], "withheld"))).toEqual([]);
    expect(crashLoopEndedDetail({ restarts: 3, lastExit: { code: null, at: null } })).toBe("crash loop ended: running again after 3 restarts; last exit code ?");
  });
});
