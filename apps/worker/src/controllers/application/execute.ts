import type { ManagedContainer } from "@levelrail/docker";
import type { MeshPort } from "@levelrail/spec/dataplane";
import type { ReconcileResult } from "../../reconcile/controller";
import type { SubnetPool } from "../../network/pool";
import { releaseStep } from "./execute-release";
import type { HookRecorder } from "./hooks";
import type { RegistryConfirmations } from "./image";
import type { Desired, Step } from "./plan";
import type { ApplicationEngine, ContainerIndex, DatabaseAttacher, DeployRecorder, PullRecorder, RegistryStore, StatusWriter } from "./ports";
import type { ProberManager } from "./prober";

export interface ExecuteDeps {
  shortName: string;
  runtime: ApplicationEngine;
  /** Told of every container this executor changes, before the pass ends. */
  containers: ContainerIndex;
  status: StatusWriter;
  registry: RegistryStore | undefined;
  hooks: HookRecorder | undefined;
  networkPool: SubnetPool;
  mesh: MeshPort;
  prober: Pick<ProberManager, "register" | "forget">;
  deploys: DeployRecorder | undefined;
  pulls: PullRecorder | undefined;
  /** A service's organization (null: no such service): a built image is only its own organization's. Absent: a built image's label alone decides. */
  serviceOrgs?: ((serviceId: string) => Promise<string | null>) | undefined;
  /** Registry confirmations of cached images, kept a short while (absent: every deploy asks the registry). */
  confirmations?: RegistryConfirmations | undefined;
  /** Joins the managed databases a service attaches to its app's network before its containers start; absent: none. */
  databases?: DatabaseAttacher | undefined;
  /** Used only while a started container has no address yet (it gets one as it starts). */
  probeIntervalMs: number;
  drainMs: number;
  now: () => number;
}

/** Go on at once: the step changed something the next pass must observe. */
export const NEXT: ReconcileResult = { requeueAfterMs: 0 };

/** What every step handler gets: the deps, the pass's desired state, and the two container helpers. */
export interface StepContext {
  x: ExecuteDeps;
  d: Desired;
  /** Removes containers and tells the index and the prober. */
  removeAll(cs: ManagedContainer[]): Promise<void>;
  /**
   * Changes a container, then has the index inspect it again, whether or not the change went through
   * (a failed change's own error is the one thrown; the next relist looks again at what it left).
   */
  changing<T>(idOrName: string, change: () => Promise<T>): Promise<T>;
}

/**
 * Performs one planned step and writes the status once. Long steps (a pull, a hook) also announce
 * themselves first, so the operator sees what the worker is waiting on.
 */
export async function execute(x: ExecuteDeps, d: Desired, step: Step): Promise<ReconcileResult | void> {
  const { runtime, containers } = x;
  const c: StepContext = {
    x,
    d,
    async removeAll(cs) {
      for (const one of cs) {
        await runtime.removeContainer(one.id);
        containers.forget(one.id);
        x.prober.forget(one.id);
      }
    },
    async changing(idOrName, change) {
      let result;
      try {
        result = await change();
      } catch (err) {
        await containers.refresh(idOrName).catch(() => {});
        throw err;
      }
      await containers.refresh(idOrName);
      return result;
    },
  };
  switch (step.kind) {
    case "remove-all":
    case "stopped":
    case "hold-failed":
    case "remove-leftovers":
    case "drain":
    case "done":
      return converged(c, step);
    default:
      return releaseStep(c, step);
  }
}

/** The steps of a service that has nothing left to deploy: publish what serves, tidy up, report. */
async function converged(c: StepContext, step: Extract<Step, { kind: "remove-all" | "stopped" | "hold-failed" | "remove-leftovers" | "drain" | "done" }>): Promise<ReconcileResult | void> {
  const { x, d } = c;
  switch (step.kind) {
    case "remove-all":
      await c.removeAll(step.remove);
      await x.mesh.setActive(d.serviceId, null);
      return;
    case "stopped":
      await c.removeAll(step.remove);
      await x.mesh.setActive(d.serviceId, null);
      return void (await x.status.setStatus(d.serviceId, step.status));
    case "hold-failed":
      await x.mesh.setActive(d.serviceId, step.publish);
      return void (await x.status.setStatus(d.serviceId, step.status));
    case "remove-leftovers":
      await c.removeAll(step.remove);
      return NEXT;
    case "drain":
      await x.mesh.setActive(d.serviceId, step.publish);
      await x.status.setStatus(d.serviceId, step.status);
      return { requeueAfterMs: step.requeueAfterMs };
    case "done":
      await x.mesh.setActive(d.serviceId, step.publish);
      await c.removeAll(step.remove);
      await x.status.setStatus(d.serviceId, step.status);
      return step.requeueAfterMs === null ? undefined : { requeueAfterMs: step.requeueAfterMs };
  }
}
