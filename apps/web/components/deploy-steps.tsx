"use client";
import Link from "@/components/link";
import { DEPLOY_STEPS, type DeployStep } from "@levelrail/spec/service-lists";
import type { StatusView } from "@levelrail/spec/service";
import { useServiceHookRuns } from "@/lib/hook-run-queries";
import type { Scoped } from "@/lib/paths";

export const STEP_LABELS: Record<DeployStep, string> = {
  pulling: "Pulling",
  "pre-deploy": "Pre-deploy hook",
  starting: "Starting",
  probing: "Probing",
  "post-deploy": "Post-deploy hook",
  cutover: "Cutting over",
};

const HOOK_PHASE_OF: Partial<Record<DeployStep, "pre" | "post">> = { "pre-deploy": "pre", "post-deploy": "post" };

/**
 * The steps of the deploy in progress with the current one highlighted,
 * following the polled status; in a hook step, a link to that hook run's
 * live output. The status card loads it (next/dynamic) only while a deploy runs.
 */
export function DeploySteps({ service, status }: { service: Scoped; status: StatusView }) {
  const hookRuns = useServiceHookRuns(service);
  if (status.phase !== "deploying" && status.step === null) return null;
  const current = status.step === null ? -1 : DEPLOY_STEPS.indexOf(status.step);
  const hookPhase = status.step === null ? undefined : HOOK_PHASE_OF[status.step];
  const running = hookPhase ? hookRuns.data?.pages[0]?.runs.find((r) => r.outcome === "running" && r.phase === hookPhase) : undefined;
  return (
    <div className="stack">
      <h3 id="deploy-steps-title">Deploy progress</h3>
      <ol className="stepper" aria-labelledby="deploy-steps-title">
        {DEPLOY_STEPS.map((step, i) => {
          const state = i === current ? "current" : i < current ? "done" : "todo";
          return (
            <li key={step} className={`step step-${state}`} aria-current={state === "current" ? "step" : undefined} data-step={step}>
              {STEP_LABELS[step]}
              {state !== "todo" && <span className="visually-hidden"> ({state === "current" ? "current step" : "done"})</span>}
            </li>
          );
        })}
      </ol>
      {current < 0 && <p className="muted">Waiting for the worker to start the next step…</p>}
      {running && (
        <p>
          <Link href={`/hook-runs/${encodeURIComponent(running.id)}`}>Watch the running {STEP_LABELS[status.step ?? "pre-deploy"].toLowerCase()} output</Link>
        </p>
      )}
    </div>
  );
}
