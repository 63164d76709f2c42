import { describe, expect, it } from "vitest";
import { cronProblem } from "@levelrail/spec/cron";
import { MAX_KEEP, backupScheduleInput } from "@levelrail/spec/database";
import { DEFAULT_SCHEDULE, attached, cronHint, detached, scheduleApiError, scheduleInput, scheduleValues } from "./database-form";

const TARGET = "0b5e7c1e-5f0e-4a8e-9d8c-2a8f3f1c6b11";

describe("backup schedule form", () => {
  it("a valid schedule round-trips through the form's text", () => {
    const r = scheduleInput({ cron: " 15 2 * * 1 ", targetId: TARGET, keep: "14" }, backupScheduleInput);
    expect(r).toEqual({ schedule: { cron: "15 2 * * 1", targetId: TARGET, keep: 14 } });
    if ("schedule" in r) expect(scheduleInput(scheduleValues(r.schedule), backupScheduleInput)).toEqual(r);
    expect(scheduleValues(null)).toEqual(DEFAULT_SCHEDULE);
  });

  it("each bad field gets its own message: cron, a missing target, keep out of range or not a number", () => {
    const r = scheduleInput({ cron: "every day", targetId: "", keep: String(MAX_KEEP + 1) }, backupScheduleInput);
    expect("errors" in r && r.errors).toMatchObject({ cron: expect.stringContaining("5 fields"), targetId: "choose a backup target", keep: `must be at most ${MAX_KEEP}` });
    const nan = scheduleInput({ cron: "0 3 * * *", targetId: TARGET, keep: "many" }, backupScheduleInput);
    expect("errors" in nan && Object.keys(nan.errors)).toEqual(["keep"]);
    const empty = scheduleInput({ cron: "0 3 * * *", targetId: TARGET, keep: " " }, backupScheduleInput);
    expect("errors" in empty && empty.errors.keep).toBe("is required");
  });

  it("the cron is checked as it is typed, and an empty one says nothing until submit", () => {
    expect(cronHint("", cronProblem)).toBeUndefined();
    expect(cronHint("0 3 * * *", cronProblem)).toBeUndefined();
    expect(cronHint("0 3 * *", cronProblem)).toMatch(/5 fields/);
    expect(cronHint("99 3 * * *", cronProblem)).toMatch(/cron/);
    expect(cronHint("0 3 * *", null)).toBeUndefined();
  });

  it("an API error of the schedule lands on its field, without the field's prefix; others are not the schedule's", () => {
    expect(scheduleApiError("backupSchedule.targetId", "backupSchedule.targetId: no such backup target in this organization")).toEqual({
      field: "targetId",
      message: "no such backup target in this organization",
    });
    expect(scheduleApiError("backupSchedule.keep", "backupSchedule.keep: must be at most 100")).toEqual({ field: "keep", message: "must be at most 100" });
    expect(scheduleApiError("backupSchedule", "backupSchedule: invalid")).toEqual({ field: "cron", message: "invalid" });
    expect(scheduleApiError("name", "name: taken")).toBeNull();
    expect(scheduleApiError(undefined, "boom")).toBeNull();
  });
});

describe("database attachments", () => {
  it("attach adds or re-points one key; detach removes only that key", () => {
    const env = { DATABASE_URL: { from: "shop-db" } };
    expect(attached(env, "REPORTS_URL", "reports")).toEqual({ DATABASE_URL: { from: "shop-db" }, REPORTS_URL: { from: "reports" } });
    expect(attached(env, "DATABASE_URL", "other")).toEqual({ DATABASE_URL: { from: "other" } });
    expect(detached({ ...env, REPORTS_URL: { from: "reports" } }, "DATABASE_URL")).toEqual({ REPORTS_URL: { from: "reports" } });
    expect(env).toEqual({ DATABASE_URL: { from: "shop-db" } });
  });
});
