import { describe, expect, it } from "vitest";
import { dueRun, objectKeyOf, pruneSet } from "./schedule";

const t = (iso: string) => new Date(iso);

describe("dueRun", () => {
  it("waits for the first due time after the schedule was set", () => {
    expect(dueRun("0 3 * * *", t("2026-12-01T10:00:00Z"), null, t("2026-12-01T10:05:00Z"))).toEqual({ runFor: null, wakeAt: t("2026-12-02T03:00:00Z") });
  });

  it("runs the due time once it has passed, and wakes for the next one", () => {
    expect(dueRun("*/5 * * * *", t("2026-12-01T10:00:00Z"), null, t("2026-12-01T10:06:00Z"))).toEqual({ runFor: t("2026-12-01T10:05:00Z"), wakeAt: t("2026-12-01T10:10:00Z") });
  });

  it("does not repeat a run already recorded for that due time", () => {
    expect(dueRun("*/5 * * * *", t("2026-12-01T10:00:00Z"), t("2026-12-01T10:05:00Z"), t("2026-12-01T10:06:00Z"))).toEqual({
      runFor: null,
      wakeAt: t("2026-12-01T10:10:00Z"),
    });
  });

  it("makes due times missed while no worker ran one run, for the latest of them", () => {
    expect(dueRun("*/5 * * * *", t("2026-12-01T10:00:00Z"), t("2026-12-01T10:05:00Z"), t("2026-12-01T11:02:00Z"))).toEqual({
      runFor: t("2026-12-01T11:00:00Z"),
      wakeAt: t("2026-12-01T11:05:00Z"),
    });
  });

  it("ignores runs recorded before the schedule was last set", () => {
    expect(dueRun("0 * * * *", t("2026-12-01T10:30:00Z"), t("2026-12-01T09:00:00Z"), t("2026-12-01T10:31:00Z"))).toEqual({ runFor: null, wakeAt: t("2026-12-01T11:00:00Z") });
  });
});

describe("pruneSet", () => {
  const b = (id: string, status: "verified" | "unverified") => ({ id, status });

  it("keeps the newest `keep` and removes the rest", () => {
    expect(pruneSet([b("4", "verified"), b("3", "verified"), b("2", "verified"), b("1", "verified")], 2).map((x) => x.id)).toEqual(["2", "1"]);
  });

  it("never removes a verified backup while an unverified one stays", () => {
    const stored = [b("5", "unverified"), b("4", "unverified"), b("3", "verified"), b("2", "verified"), b("1", "verified")];
    expect(pruneSet(stored, 2).map((x) => x.id)).toEqual(["5", "4", "1"]);
  });

  it("tops up with the newest unverified ones while too few are verified", () => {
    const stored = [b("4", "unverified"), b("3", "unverified"), b("2", "verified")];
    expect(pruneSet(stored, 2).map((x) => x.id)).toEqual(["3"]);
  });
});

describe("objectKeyOf", () => {
  it("is <short>/<databaseId>/<ISO time>.dump", () => {
    expect(objectKeyOf("levelrail", "d1", t("2026-12-01T10:00:00.123Z"))).toBe("levelrail/d1/2026-12-01T10:00:00.123Z.dump");
  });
});
