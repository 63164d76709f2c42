import type { BuildView } from "@levelrail/services/build/view";

/** The label of a build's status badge and its class (the badge colours of phases and outcomes). */
export function buildBadge(b: Pick<BuildView, "status" | "step">): { label: string; className: string } {
  switch (b.status) {
    case "queued":
      return { label: "queued", className: "outcome-pending" };
    case "running":
      return { label: `running: ${b.step ?? "starting"}`, className: "outcome-running" };
    case "succeeded":
      return { label: "succeeded", className: "outcome-succeeded" };
    case "failed":
      return { label: "failed", className: "outcome-failed" };
    case "cancelled":
      return { label: "cancelled", className: "outcome-error" };
    case "superseded":
      return { label: "superseded", className: "outcome-pending" };
  }
}

/** `1m 05s`, `12.3 s`, or a dash before it starts. */
export function buildDuration(b: Pick<BuildView, "durationMs">): string {
  if (b.durationMs === null) return "—";
  const s = b.durationMs / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)}m ${String(Math.round(s % 60)).padStart(2, "0")}s`;
}
