import { describe } from "../describe";
import type { workerMetrics } from "../metrics";
import type { Controller } from "../reconcile/controller";
import { Runner, type RunnerEvent } from "../reconcile/runner";

/** Makes runners that log errors, feed the worker's metrics, and are all stopped together. */
export function runnerFactory(metrics: ReturnType<typeof workerMetrics>, log: (line: string) => void) {
  const runners: Runner[] = [];
  const runner = (controller: Controller, extraLog?: (e: RunnerEvent) => void, tenantOf?: (key: string) => string | Promise<string>, concurrency?: number) => {
    const r: Runner = new Runner(controller, {
      ...(tenantOf ? { tenantOf } : {}),
      ...(concurrency ? { concurrency } : {}),
      log: (e) => {
        extraLog?.(e);
        metrics.observe(controller.name, () => r.depth)(e);
        if (e.type === "error") log(`[${controller.name}] ${e.key}: ${describe(e.error)}; retry in ${e.retryInMs} ms`);
        if (e.type === "terminal") log(`[${controller.name}] ${e.key}: ${e.error.message}`);
      },
    });
    runners.push(r);
    return r;
  };
  return { runner, runners };
}
