import type { ManagedContainer, Runtime } from "@levelrail/docker";
import type { ServiceEventKind } from "@levelrail/db/schema/observability";
import type { Redactor } from "@levelrail/spec/redact";
import { CRASH_LOOP_LINES, crashLoopEndedDetail, crashLoopStartedDetail, lastLines } from "@levelrail/spec/service-event";
import type { ObservedStatus, StatusWriter } from "./ports";

/** Where a service's crash loops are recorded (`service_event`): what notifications and DORA read. */
export interface ServiceEventRecorder {
  record(e: { orgId: string; serviceId: string; kind: ServiceEventKind; detail: string }): Promise<void>;
}

/**
 * Pure: the event a status makes due, given the service's last one. Only a status that looked at the
 * live container (running, or a failed release with the one that keeps serving) tells: a deploy's
 * steps say nothing about the live container's health.
 */
export function crashLoopTransition(last: ServiceEventKind | null, s: ObservedStatus): ServiceEventKind | null {
  if (s.phase !== "running" && s.phase !== "failed") return null;
  const looping = last === "crash_loop_started";
  if (s.crashLooping && !looping) return "crash_loop_started";
  if (!s.crashLooping && looping) return "crash_loop_ended";
  return null;
}

export interface CrashLoopDeps {
  orgId: string;
  /** The service's last recorded event (from the pass's read of the service), null when none. */
  last: ServiceEventKind | null;
  /** The containers the pass observed: the status's active one is looked up by name. */
  containers: readonly ManagedContainer[];
  runtime: Pick<Runtime, "containerLogs">;
  events: ServiceEventRecorder;
  /**
   * The service's secret values and the container's own (those it was created with, before a
   * rotation), resolved only when an event is about to hold the container's output; null: not all known.
   */
  redactor: (c: ManagedContainer | undefined) => Promise<Redactor | null>;
}

const WITHHELD = "(its last lines are not kept: the service's secrets could not all be resolved to hide them)";

/**
 * A status writer that records a crash loop's start and end, once per transition: the status is
 * compared with the service's last event (read fresh every pass), so neither a repeated pass nor a
 * worker restart records one twice. The event is written before the status; a failure between the
 * two leaves a status the next pass compares again.
 */
export function crashLoopRecording(inner: StatusWriter, d: CrashLoopDeps): StatusWriter {
  let last = d.last;
  return {
    updateRelease: (id, u) => inner.updateRelease(id, u),
    async setStatus(serviceId, status) {
      const kind = crashLoopTransition(last, status);
      if (kind !== null) {
        const facts = { restarts: status.restarts, lastExit: status.lastExit };
        let detail = crashLoopEndedDetail(facts);
        if (kind === "crash_loop_started") {
          const c = d.containers.find((x) => x.name === status.activeContainer);
          const redact = await d.redactor(c);
          // Without every secret value to hide, the output is not kept at all.
          const output = c && redact ? await d.runtime.containerLogs(c.id, CRASH_LOOP_LINES).catch(() => "") : "";
          detail = crashLoopStartedDetail(facts, redact ? lastLines(redact(output)) : [], redact ? null : WITHHELD);
        }
        await d.events.record({ orgId: d.orgId, serviceId, kind, detail });
        last = kind;
      }
      await inner.setStatus(serviceId, status);
    },
  };
}
