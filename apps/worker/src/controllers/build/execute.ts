import { buildKey, formatKey } from "@levelrail/spec/keys";
import type { ReconcileResult } from "../../reconcile/controller";
import type { BuildDesired, BuildStep } from "./plan";
import { type RunDeps, runBuild } from "./run";

export type ExecuteDeps = RunDeps & { wake: (key: string) => void };

/**
 * Performs one planned step of a build and writes its outcome on the build. A build that ends wakes
 * the next queued build of its service (one build at a time per service).
 */
export async function executeBuild(x: ExecuteDeps, d: BuildDesired, step: BuildStep): Promise<ReconcileResult | void> {
  const b = d.build;
  if (!b) return;
  switch (step.kind) {
    case "none":
      return;
    case "wait":
      await x.store.updateBuild(b.id, { message: "queued: waiting for the service's running build to end" });
      return { requeueAfterMs: step.requeueAfterMs };
    case "interrupt":
      await x.store.updateBuild(b.id, { status: "failed", runner: null, finishedAt: x.now(), message: step.message });
      return wakeNext(x, b.serviceId);
    case "cancel":
      await x.store.updateBuild(b.id, { status: "cancelled", finishedAt: x.now(), message: step.message });
      return wakeNext(x, b.serviceId);
    case "fail":
      await x.store.updateBuild(b.id, { status: "failed", finishedAt: x.now(), message: step.message });
      return wakeNext(x, b.serviceId);
    case "run":
      if (!d.source) return;
      await runBuild(x, b, d.source);
      return wakeNext(x, b.serviceId);
    default: {
      const unknown: never = step;
      throw new Error(`no executor for build step ${JSON.stringify(unknown)}`);
    }
  }
}

async function wakeNext(x: ExecuteDeps, serviceId: string): Promise<void> {
  const next = await x.store.nextQueued(serviceId);
  if (next) x.wake(formatKey(buildKey(next)));
}
