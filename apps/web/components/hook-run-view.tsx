"use client";
import Link from "@/components/link";
import { HOOK_OUTCOME_LABELS, HOOK_PHASE_LABELS, commandText, formatDuration } from "@/lib/format";
import { useHookRun } from "@/lib/hook-run-query";
import type { HookRunItem } from "@/lib/types";
import { HookOutput } from "./hook-output";
import { Timestamp } from "./timestamp";
import { Alert } from "./alert";

export function HookOutcomeBadge({ outcome }: { outcome: HookRunItem["outcome"] }) {
  return <span className={`badge outcome-${outcome}`}>{HOOK_OUTCOME_LABELS[outcome]}</span>;
}

/** One hook run: what ran, how it ended, and its output, polled while it runs. */
export function HookRunView({ id, titleId, pageLink }: { id: string; titleId: string; pageLink?: boolean }) {
  const run = useHookRun(id);
  if (run.isPending) return <p className="muted">Loading the hook run…</p>;
  if (run.isError) {
    return (
      <Alert>
        {run.error.message}
      </Alert>
    );
  }
  const r = run.data;
  const running = r.outcome === "running";
  return (
    <div className="stack">
      <div className="card-head">
        <h3 id={titleId}>
          {HOOK_PHASE_LABELS[r.phase]} hook of {r.service}, <Timestamp iso={r.startedAt} />
        </h3>
        {pageLink && <Link href={`/hook-runs/${encodeURIComponent(r.id)}`}>Open on its own page</Link>}
      </div>
      <dl className="facts">
        <dt>Outcome</dt>
        <dd data-testid="hook-outcome">
          <HookOutcomeBadge outcome={r.outcome} />
        </dd>
        <dt>Command</dt>
        <dd className="mono">{commandText(r.command)}</dd>
        <dt>Started</dt>
        <dd>
          <Timestamp iso={r.startedAt} />
        </dd>
        <dt>Duration</dt>
        <dd>{running ? "still running" : formatDuration(r.durationMs)}</dd>
        <dt>Exit code</dt>
        <dd>{r.exitCode ?? "—"}</dd>
        {r.message && (
          <>
            <dt>Message</dt>
            <dd className="message">{r.message}</dd>
          </>
        )}
      </dl>
      <HookOutput output={r.output} running={running} />
    </div>
  );
}
