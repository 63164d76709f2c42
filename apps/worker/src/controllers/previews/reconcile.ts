import type { ObservedPreview } from "@levelrail/services/preview/converge";
import { type PreviewOutcome, StatusRefused } from "@levelrail/services/preview/provider-api";
import { LevelrailError } from "@levelrail/spec/errors";
import { type SweptPreview, previewUrl, sweepDecision } from "@levelrail/spec/preview";
import type { Controller, ReconcileResult } from "../../reconcile/controller";
import { type PreviewStep, needsOutcome, planPreview, reportOf } from "./plan";

/** What the preview controller asks of the database and the verbs (`@levelrail/services/preview/*` implement it). */
export interface PreviewStore {
  observe(): Promise<ObservedPreview[]>;
  outcome(id: string): Promise<PreviewOutcome>;
  open(id: string): Promise<void>;
  build(id: string): Promise<number>;
  remove(id: string): Promise<void>;
  /** Records the outcome posted (`<state> <commit>`), or only a message when it could not be. */
  reported(id: string, reported: string | null, message?: string): Promise<void>;
  message(id: string, message: string): Promise<void>;
  /** The sweep's view: previews by project and repository, their time to live, the open requests' lister (null: no provider API). */
  sweepTargets(): Promise<{ ttlHours: number | null; previews: (SweptPreview & { id: string })[]; listOpen: (() => Promise<Set<number>>) | null }[]>;
  close(id: string, reason: string): Promise<boolean>;
}

/** The provider's commit status endpoint, as the controller uses it. */
export interface StatusPoster {
  post(p: ObservedPreview, outcome: PreviewOutcome, targetUrl: string): Promise<void>;
}

export interface PreviewsControllerOptions {
  store: PreviewStore;
  status: StatusPoster;
  now: () => Date;
  /** How often the sweep runs (5 minutes by default); it also runs at the worker's start. */
  sweepEveryMs?: number;
  /** How soon a pass comes back while an outcome is still pending at a status URL. */
  pendingRecheckMs?: number;
  log: (line: string) => void;
}

/**
 * Previews as reconciled state (DESIGN: runtimes and builds), two keys on one runner. `previews`:
 * every preview converges (plan.ts picks each one's next step: clone, build, report, remove) until
 * none has a step left. `preview-sweep`, on a schedule: previews past their time to live, and those
 * whose request the provider no longer lists as open (matched by number, never by a branch), are
 * closed; the `previews` pass then deletes their environments. A refusal by a verb (a quota, a
 * domain another organization holds) is recorded on the preview, not retried in a loop.
 */
export function previewsController(o: PreviewsControllerOptions): Controller {
  const sweepEveryMs = o.sweepEveryMs ?? 300_000;
  const pendingRecheckMs = o.pendingRecheckMs ?? 15_000;

  async function act(p: ObservedPreview, step: PreviewStep): Promise<void> {
    switch (step.kind) {
      case "open":
        return o.store.open(p.id);
      case "build":
        await o.store.build(p.id);
        return;
      case "remove":
        return o.store.remove(p.id);
      case "report":
        try {
          await o.status.post(p, step.outcome, previewUrl(p.number, p.domain ?? "localhost"));
          await o.store.reported(p.id, reportOf(step.outcome, p.headCommit));
        } catch (err) {
          const why = `the status (${step.outcome}) was not taken: ${err instanceof Error ? err.message : String(err)}`;
          // Refused for good (a 4xx: no token, a wrong one): recorded, not posted again until the outcome changes.
          if (err instanceof StatusRefused && err.final) return o.store.reported(p.id, reportOf(step.outcome, p.headCommit), why);
          await o.store.reported(p.id, null, why);
          throw err;
        }
        return;
      case "none":
        return;
    }
  }

  async function converge(): Promise<ReconcileResult> {
    let failed: unknown = null;
    let pending = false;
    for (const first of await o.store.observe()) {
      let p = first;
      // At most a few steps per preview per pass: clone, build, report.
      for (let i = 0; i < 4; i++) {
        const outcome = needsOutcome(p) ? await o.store.outcome(p.id) : null;
        const step = planPreview(p, outcome);
        if (step.kind === "none") {
          if (outcome === "pending") pending = true;
          break;
        }
        try {
          await act(p, step);
        } catch (err) {
          if (err instanceof LevelrailError && !err.retryable) await o.store.message(p.id, `${step.kind}: ${err.message}`);
          else failed ??= err;
          o.log(`[previews] #${p.number} ${step.kind}: ${err instanceof Error ? err.message : String(err)}`);
          break;
        }
        const again = (await o.store.observe()).find((x) => x.id === p.id);
        if (!again) break;
        p = again;
      }
    }
    if (failed) throw failed;
    return pending ? { requeueAfterMs: pendingRecheckMs } : {};
  }

  async function sweep(): Promise<ReconcileResult> {
    const now = o.now();
    for (const t of await o.store.sweepTargets()) {
      let open: Set<number> | null = null;
      if (t.listOpen) {
        try {
          open = await t.listOpen();
        } catch (err) {
          // An API that does not answer closes nothing: only the time to live counts this round.
          o.log(`[previews] sweep: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      for (const p of t.previews) {
        const d = sweepDecision(p, t.ttlHours, now, open);
        if (d.close) await o.store.close(p.id, d.reason);
      }
    }
    return { requeueAfterMs: sweepEveryMs };
  }

  return {
    name: "previews",
    async reconcile(key) {
      return key === "preview-sweep" ? sweep() : converge();
    },
  };
}
