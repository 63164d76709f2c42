import { formatDuration } from "./format";
import type { BackupView } from "./types";

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"] as const;

/** A size as the tables show it: bytes under 1 KiB, else one decimal in the largest binary unit below it. */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return "—";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** The first 12 hex digits of a sha256, enough to tell two dumps apart at a glance. */
export const shortSha = (sha: string) => sha.slice(0, 12);

/** How long a backup took, from its start to its end (or "—" while it runs or never started). */
export function backupDuration(b: Pick<BackupView, "startedAt" | "finishedAt">): string {
  if (!b.startedAt || !b.finishedAt) return "—";
  return formatDuration(Math.max(0, Date.parse(b.finishedAt) - Date.parse(b.startedAt)));
}

/** The label of a backup's status badge and its class (the badge colours of phases and outcomes). */
export function backupBadge(b: Pick<BackupView, "status" | "step">): { label: string; className: string } {
  if (b.status === "running") return { label: `running: ${b.step ?? "queued"}`, className: "outcome-running" };
  if (b.step === "verifying") return { label: "verifying again", className: "outcome-running" };
  switch (b.status) {
    case "verified":
      return { label: "verified", className: "outcome-succeeded" };
    case "unverified":
      return { label: "unverified", className: "outcome-unverified" };
    case "failed":
      return { label: "failed", className: "outcome-failed" };
    case "interrupted":
      return { label: "interrupted", className: "outcome-error" };
  }
}

/** What to say beside the badge: what differed for an unverified backup, the reason for a failed one, the step's message otherwise. */
export function backupDetail(b: Pick<BackupView, "status" | "message" | "verification" | "prunedAt">): string {
  const differences = b.verification && !b.verification.ok ? b.verification.differences : [];
  const base = b.status === "unverified" && differences.length ? differences.join("; ") : b.message;
  return b.prunedAt ? `${base} (removed from the target by the keep rule)` : base;
}

/** Whether a backup's object can be read back: the API refuses verify and restore otherwise. */
export const backupReadable = (b: Pick<BackupView, "status" | "objectKey" | "prunedAt" | "targetId">) =>
  (b.status === "verified" || b.status === "unverified") && b.objectKey !== null && b.prunedAt === null && b.targetId !== null;
