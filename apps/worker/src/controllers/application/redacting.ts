import type { Redactor } from "@levelrail/spec/redact";
import type { HookRecorder } from "./hooks";
import type { ObservedStatus, StatusWriter } from "./ports";
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
