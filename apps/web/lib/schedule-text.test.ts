import { describe, expect, it } from "vitest";
import { scheduleText } from "./schedule-text";

describe("schedule text", () => {
  it("a schedule in one line, with its next run", () => {
    expect(scheduleText(null, undefined, null)).toBe("no schedule");
    expect(scheduleText({ cron: "0 3 * * *", targetId: "t1", keep: 7 }, "s3-main", "2026-12-02T03:00:00.000Z")).toBe("0 3 * * * (UTC) to s3-main, keep 7; next 2026-12-02 03:00:00 UTC");
    expect(scheduleText({ cron: "0 3 * * *", targetId: "t1", keep: 7 }, undefined, null)).toBe("0 3 * * * (UTC) to a backup target, keep 7");
  });
});
