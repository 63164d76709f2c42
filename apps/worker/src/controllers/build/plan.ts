import type { BuildRecord, SourceRecord } from "./ports";

export const INTERRUPTED = "interrupted: the worker stopped while this build ran; build again";
/** How often a build queued behind another of its service looks again (the other's end also wakes it). */
export const WAIT_FOR_SERVICE_MS = 30_000;

/** What a build pass wants: the build and its service's source as stored, and which worker process this is. */
export interface BuildDesired {
  build: BuildRecord | null;
  source: SourceRecord | null;
  /** This worker process: a running build marked by another one was cut short when that one stopped. */
  runner: string;
}

export interface BuildObserved {
  /** Another build of the same service is running (one build at a time per service). */
  serviceBusy: boolean;
}

/** The one next step of a build. */
export type BuildStep =
  /** Gone, or finished. */
  | { kind: "none" }
  /** Cut short by a worker that stopped: failed as interrupted. */
  | { kind: "interrupt"; message: string }
  /** Cancelled before it started. */
  | { kind: "cancel"; message: string }
  | { kind: "fail"; message: string }
  /** Another build of its service runs: this one waits (its end wakes this key). */
  | { kind: "wait"; requeueAfterMs: number }
  /** Fetch, build, and deploy when asked. `restart`: this process's own earlier attempt threw half way. */
  | { kind: "run"; restart: boolean };

const FINISHED = new Set(["succeeded", "failed", "cancelled", "superseded"]);

/** Pure: the one next step of a build. */
export function planBuild(d: BuildDesired, o: BuildObserved): BuildStep {
  const b = d.build;
  if (!b || FINISHED.has(b.status)) return { kind: "none" };
  if (b.status === "running" && b.runner !== null && b.runner !== d.runner) return { kind: "interrupt", message: INTERRUPTED };
  if (b.cancelRequestedAt) return { kind: "cancel", message: "cancelled before it finished" };
  if (!d.source) return { kind: "fail", message: "the service has no git source any more" };
  if (b.status === "queued" && o.serviceBusy) return { kind: "wait", requeueAfterMs: WAIT_FOR_SERVICE_MS };
  return { kind: "run", restart: b.status === "running" };
}
