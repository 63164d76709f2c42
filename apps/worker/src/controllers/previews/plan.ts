import type { ObservedPreview } from "@levelrail/services/preview/converge";
import type { PreviewOutcome } from "@levelrail/services/preview/provider-api";

/** The one next step for a preview. */
export type PreviewStep =
  | { kind: "open" }
  | { kind: "build" }
  | { kind: "remove" }
  | { kind: "report"; outcome: PreviewOutcome }
  | { kind: "none" };

/** Whether the plan needs the preview's build outcome (only then is it observed). */
export const needsOutcome = (p: ObservedPreview) => p.state === "open" && p.domain !== null && p.environmentId !== null && p.builtCommit === p.headCommit && p.statusUrl !== null;

/** What was last posted for this outcome and commit (the `reported` column). */
export const reportOf = (outcome: PreviewOutcome, commit: string) => `${outcome} ${commit}`;

/**
 * Pure: a closed or refused preview that still has an environment has it removed; an open one gets its
 * environment (cloned), then builds of its head commit, then its outcome reported when the provider
 * gave a status URL and the outcome changed since the last report. One awaiting a member's approval
 * of its head commit (a fork's or an outsider's request) takes no step until it is approved.
 */
export function planPreview(p: ObservedPreview, outcome: PreviewOutcome | null): PreviewStep {
  if (p.state !== "open") return p.environmentId ? { kind: "remove" } : { kind: "none" };
  if (p.domain === null) return { kind: "none" };
  // A fork's or an outsider's head commit that no member approved: nothing is cloned, built or reported.
  if (p.awaitingApproval && (!p.environmentId || p.builtCommit !== p.headCommit)) return { kind: "none" };
  if (!p.environmentId) return { kind: "open" };
  if (p.builtCommit !== p.headCommit) return { kind: "build" };
  if (p.statusUrl && outcome && p.reported !== reportOf(outcome, p.headCommit)) return { kind: "report", outcome };
  return { kind: "none" };
}
