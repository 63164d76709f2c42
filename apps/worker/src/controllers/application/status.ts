import type { ManagedContainer } from "@levelrail/docker";
import type { DeployStep, ReplicaView } from "@levelrail/spec/service";
import type { LastExit, ObservedStatus } from "./ports";

/** Restarts at least this many, the last one this recent: the engine is restarting a crashing container. */
export const CRASH_LOOP_RESTARTS = 3;
export const CRASH_LOOP_WINDOW_MS = 60_000;

/** What the engine's restarts of a live container look like, for the status. */
export interface Health {
  crashLooping: boolean;
  restarts: number;
  lastExit: LastExit | null;
  /** "" while it runs normally; otherwise what the operator should know. */
  message: string;
}

export const QUIET: Health = { crashLooping: false, restarts: 0, lastExit: null, message: "" };
/** The status fields of a container the engine never restarted (or none at all). */
export const NO_RESTARTS = { crashLooping: false, restarts: 0, lastExit: null } as const;

/** Pure: how a live (succeeded, `unless-stopped`) container is doing; its restarts are the engine's business. */
export function health(c: ManagedContainer, now: number): Health {
  const restarts = c.restartCount;
  const lastExit = c.exitCode === null ? null : { code: c.exitCode, at: c.finishedAt > 0 ? new Date(c.finishedAt).toISOString() : null };
  // A first exit shows as "restarting" too, for the engine's short back-off: only repeated ones are a loop
  // (so one crash does not flap the loop's start and end events).
  const crashLooping = restarts >= CRASH_LOOP_RESTARTS && (c.state === "restarting" || now - c.startedAt < CRASH_LOOP_WINDOW_MS);
  const times = `${restarts} restart${restarts === 1 ? "" : "s"}`;
  const code = c.exitCode ?? "?";
  let message = "";
  if (c.state === "restarting" || c.state === "exited" || c.state === "dead") message = `container exited with code ${code}; the engine restarts it (${times})`;
  else if (crashLooping) message = `container keeps crashing (${times}, last exit code ${code}); the engine restarts it`;
  return { crashLooping, restarts, lastExit, message };
}

/** When a crash loop by the restart-count rule ends if nothing more happens (for a status refresh), or null. */
export function crashLoopEndsInMs(c: ManagedContainer, now: number): number | null {
  if (c.state === "restarting" || c.restartCount < CRASH_LOOP_RESTARTS) return null;
  const left = c.startedAt + CRASH_LOOP_WINDOW_MS - now;
  return left > 0 ? left : null;
}

export function deploying(image: string, step: DeployStep, active: string | null, message: string): ObservedStatus {
  return { phase: "deploying", step, image, activeContainer: active, message, ...NO_RESTARTS };
}

export function running(image: string, active: ManagedContainer, now: number): ObservedStatus {
  const { message, ...h } = health(active, now);
  return { phase: "running", step: null, image, activeContainer: active.name, message, ...h };
}

/** A failed release: what failed and, when one runs, which container keeps serving. */
export function failed(image: string, active: ManagedContainer | null, message: string, now: number): ObservedStatus {
  const h = active ? health(active, now) : QUIET;
  const text = active ? `${message}; ${active.name} keeps serving` : message;
  return { phase: "failed", step: null, image, activeContainer: active?.name ?? null, message: h.message ? `${text} (${h.message})` : text, crashLooping: h.crashLooping, restarts: h.restarts, lastExit: h.lastExit };
}

export function stopped(): ObservedStatus {
  return { phase: "stopped", step: null, image: null, activeContainer: null, message: "not deployed yet", ...NO_RESTARTS };
}

const sameReplicas = (a: readonly ReplicaView[], b: readonly ReplicaView[]) =>
  a.length === b.length && a.every((r, i) => r.name === b[i]!.name && r.node === b[i]!.node && r.address === b[i]!.address);

/** Pure: whether two statuses say the same (a pass writes only one that changed). */
export function sameStatus(a: ObservedStatus, b: ObservedStatus): boolean {
  return (
    a.phase === b.phase &&
    a.step === b.step &&
    a.image === b.image &&
    a.activeContainer === b.activeContainer &&
    a.message === b.message &&
    a.crashLooping === b.crashLooping &&
    a.restarts === b.restarts &&
    (a.lastExit === null || b.lastExit === null ? a.lastExit === b.lastExit : a.lastExit.code === b.lastExit.code && a.lastExit.at === b.lastExit.at) &&
    sameReplicas(a.replicas ?? [], b.replicas ?? [])
  );
}
