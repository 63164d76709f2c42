import type { ReleaseView } from "@levelrail/spec/service";
import type { HookRunItem } from "./types";

/** A duration as the tables show it: ms under a second, else seconds with one decimal. */
export const formatDuration = (ms: number | null) => (ms === null ? "—" : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** A span of time in the unit that reads best: minutes, hours or days. */
export function formatSpan(ms: number | null): string {
  if (ms === null) return "—";
  const min = ms / 60_000;
  if (min < 1) return "under a minute";
  if (min < 90) return `${Math.round(min)} min`;
  const hours = min / 60;
  if (hours < 36) return `${hours.toFixed(1)} h`;
  return `${(hours / 24).toFixed(1)} days`;
}

// formatTime lives in time-format.ts: <Timestamp> is on most pages, the rest of this module is not.
export { formatTime } from "./time-format";

export const HOOK_PHASE_LABELS: Record<HookRunItem["phase"], string> = { pre: "pre-deploy", post: "post-deploy" };

export const HOOK_OUTCOME_LABELS: Record<HookRunItem["outcome"], string> = {
  running: "running",
  succeeded: "succeeded",
  failed: "failed",
  timed_out: "timed out",
  error: "error",
};

/**
 * An argument array as one line: arguments separated by spaces, and any that
 * is empty or holds spaces, quotes or backslashes written as a JSON string, so
 * the boundaries stay visible. For reading only; nothing runs it through a shell.
 */
export const commandText = (argv: readonly string[]) => argv.map((a) => (a === "" || /[\s"'\\]/.test(a) ? JSON.stringify(a) : a)).join(" ");

/** What started a release, as the history shows it; a promote says where it came from. */
export const releaseKindText = (r: Pick<ReleaseView, "kind" | "promotedFrom">) =>
  r.kind === "promote" && r.promotedFrom ? `promoted from ${r.promotedFrom.environment}` : r.kind;
