import type { Redactor } from "@levelrail/spec/redact";
import type { HookRecorder } from "./hooks";
import type { ContainerIndex, ObservedStatus, StatusWriter } from "./ports";
import { sameStatus } from "./status";

/** A status writer that redacts the service's secrets from every status and release message before it is stored. */
export function redactingStatus(inner: StatusWriter, redact: Redactor): StatusWriter {
  return {
    setStatus: (serviceId, status) => inner.setStatus(serviceId, { ...status, message: redact(status.message) }),
    updateRelease: (releaseId, update) => inner.updateRelease(releaseId, update.message === undefined ? update : { ...update, message: redact(update.message) }),
  };
}

/**
 * A hook recorder that redacts the service's secrets from a run's output and message before they are
 * stored. The whole output so far is redacted each time, so a secret split across two chunks of the
 * stream is still found.
 */
export function redactingHooks(inner: HookRecorder, redact: Redactor): HookRecorder {
  return {
    begin: (run) => inner.begin(run),
    progress: (runId, output) => inner.progress(runId, redact(output)),
    finish: (runId, r) => inner.finish(runId, { ...r, output: redact(r.output), message: redact(r.message) }),
    succeeded: (releaseId, phase) => inner.succeeded(releaseId, phase),
  };
}

/**
 * Each status names where the copy that serves runs (docs/operating/nodes-and-swarm.md#where-a-service-runs): on
 * one engine the active container, on this engine (`node`), with its address on the app's network;
 * none while no container serves or it has no address there.
 */
export function reportingReplicas(inner: StatusWriter, index: Pick<ContainerIndex, "byService">, node: string, network: string): StatusWriter {
  return {
    async setStatus(serviceId, status) {
      const active = status.activeContainer ? index.byService(serviceId).find((c) => c.name === status.activeContainer && c.state === "running") : undefined;
      const address = active?.addresses[network];
      await inner.setStatus(serviceId, { ...status, replicas: active && address ? [{ name: active.name, node, address }] : [] });
    },
    updateRelease: (releaseId, update) => inner.updateRelease(releaseId, update),
  };
}

/**
 * A status writer that skips a status equal to the one stored (`stored`: as the pass read it; null:
 * no row yet; undefined: unknown, so every status is written). After a write, the written one is
 * what is stored. A pass with nothing to do writes nothing.
 */
export function changedStatusOnly(inner: StatusWriter, stored: ObservedStatus | null | undefined): StatusWriter {
  let current = stored;
  return {
    async setStatus(serviceId, status) {
      if (current && sameStatus(current, status)) return;
      await inner.setStatus(serviceId, status);
      current = status;
    },
    updateRelease: (releaseId, update) => inner.updateRelease(releaseId, update),
  };
}
