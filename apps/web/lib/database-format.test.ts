import { describe, expect, it } from "vitest";
import { backupBadge, backupDetail, backupDuration, backupReadable, formatBytes, shortSha } from "./database-format";
import type { BackupView } from "./types";

const backup = (over: Partial<BackupView>): BackupView => ({
  id: "b1",
  databaseId: "d1",
  status: "verified",
  step: null,
  message: "verified: restored and compared",
  startedAt: "2026-12-01T03:00:00.000Z",
  finishedAt: "2026-12-01T03:00:04.250Z",
  sizeBytes: 1536,
  sha256: "a".repeat(64),
  objectKey: "lrtest/d1/2026-12-01T03:00:00.000Z.dump",
  targetId: "t1",
  trigger: "manual",
  scheduledFor: null,
  verification: { at: "2026-12-01T03:00:04.250Z", ok: true, differences: [], sha256: "a".repeat(64) },
  prunedAt: null,
  createdAt: "2026-12-01T03:00:00.000Z",
  ...over,
});

describe("backup formatting", () => {
  it("sizes are human-readable in binary units", () => {
    expect(formatBytes(null)).toBe("—");
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(200 * 1024 * 1024)).toBe("200.0 MiB");
    expect(formatBytes(3 * 1024 ** 3)).toBe("3.0 GiB");
  });

  it("duration from start to end; a running backup has none yet", () => {
    expect(backupDuration(backup({}))).toBe("4.3 s");
    expect(backupDuration(backup({ finishedAt: null }))).toBe("—");
    expect(shortSha("0123456789abcdef")).toBe("0123456789ab");
  });

  it("the badge says running with its step, verifying again, and each final status", () => {
    expect(backupBadge(backup({ status: "running", step: "dumping" })).label).toBe("running: dumping");
    expect(backupBadge(backup({ status: "running", step: null })).label).toBe("running: queued");
    expect(backupBadge(backup({ status: "verified", step: "verifying" })).label).toBe("verifying again");
    for (const status of ["verified", "unverified", "failed", "interrupted"] as const) expect(backupBadge(backup({ status })).label).toBe(status);
  });

  it("an unverified backup says what differed; a failed one its reason; a pruned one that it left the target", () => {
    const differences = ["table orders: 10 rows dumped, 9 restored", "schema: missing index orders_pkey"];
    expect(backupDetail(backup({ status: "unverified", message: "unverified: …", verification: { at: "x", ok: false, differences, sha256: null } }))).toBe(differences.join("; "));
    expect(backupDetail(backup({ status: "failed", message: "the target refused: InvalidAccessKeyId", verification: null }))).toBe("the target refused: InvalidAccessKeyId");
    expect(backupDetail(backup({ prunedAt: "2026-12-02T00:00:00.000Z" }))).toMatch(/keep rule/);
  });

  it("only a stored, unpruned backup with a target can be verified or restored", () => {
    expect(backupReadable(backup({}))).toBe(true);
    expect(backupReadable(backup({ status: "unverified" }))).toBe(true);
    expect(backupReadable(backup({ status: "failed" }))).toBe(false);
    expect(backupReadable(backup({ status: "running" }))).toBe(false);
    expect(backupReadable(backup({ prunedAt: "2026-12-02T00:00:00.000Z" }))).toBe(false);
    expect(backupReadable(backup({ targetId: null }))).toBe(false);
  });
});
