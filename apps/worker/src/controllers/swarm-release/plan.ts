import type { SwarmServiceInfo, SwarmServiceSpec, SwarmTask } from "@levelrail/docker/swarm";
import type { ReleaseOutcome } from "@levelrail/spec/service";
import type { ObservedStatus, ProbeResult } from "../application/ports";
import { CRASH_LOOP_RESTARTS, CRASH_LOOP_WINDOW_MS, NO_RESTARTS, deploying, stopped } from "../application/status";

// The release controller on a swarm, planned purely: one step per pass from what the swarm shows
// (the service's swarm services and their tasks) and what the probes answered. Blue-green across
// nodes: the new release's service runs beside the old ones until every one of its tasks is
// running and has answered its probe; only then does the release switch, and the old services
// keep serving requests in flight until the drain ends.

/** Failed or rejected tasks of a release still proving itself after which it fails (the engine retries each after 1 s). */
export const FAILED_TASKS_LIMIT = 3;
/**
 * How soon a pass looks again while tasks start or answer probes: a pass costs a listing of the
 * service's swarm services, their tasks and the nodes (and an exec per running task while probing),
 * and a deploy waits for it.
 */
export const WAIT_MS = 250;

export interface DesiredSwarmRelease {
  id: string;
  outcome: ReleaseOutcome;
  /** When it switched (ms since epoch), null before. */
  finishedAt: number | null;
  /** Its swarm service as the spec builder made it. */
  spec: SwarmServiceSpec;
  /** The release spec's image reference, for the status. */
  image: string;
  readyBudgetMs: number;
  /** The secrets' values by key: the executor makes them the release's swarm secret (`withSecretEnv`); no step carries them. */
  secretEnv: Record<string, string>;
  /** Its hooks (argv each), run as swarm jobs: pre-deploy before its service is made, post-deploy before the switch. */
  hooks?: { preDeploy: string[] | null; postDeploy: string[] | null; timeoutSeconds: number };
}

export interface SwarmDesired {
  /** Null: the service was deleted. */
  service: { id: string } | null;
  release: DesiredSwarmRelease | null;
  drainMs: number;
}

/** One swarm service of the product service, with its tasks. */
export interface ObservedReleaseService {
  info: SwarmServiceInfo;
  tasks: SwarmTask[];
}

export interface SwarmObserved {
  now: number;
  /** Every swarm service labelled with the product service's id. */
  services: ObservedReleaseService[];
  /** Probe answers by task id: only of the release's running tasks, only while it has not switched. */
  probes: Record<string, ProbeResult>;
  /** Node id → its name, for messages. */
  nodeNames: Record<string, string>;
  /** Nodes the manager does not see `ready` (down, disconnected, unknown: lost): their tasks serve nothing, whatever their last state says. Absent: none. */
  lostNodes?: readonly string[];
}

/** Where a task of the release runs, for the status and the data plane. */
export interface TaskPlacement {
  taskId: string;
  nodeId: string;
  address: string;
}

export type SwarmStep =
  /** The service is gone: remove every swarm service of it; nothing to report. */
  | { kind: "remove-all"; remove: string[] }
  /** No release: remove everything, report stopped. */
  | { kind: "stopped"; remove: string[]; status: ObservedStatus }
  /** The release cannot run as asked: fail it, remove its service, the old ones keep serving. */
  | { kind: "fail"; message: string; remove: string[]; status: ObservedStatus }
  /** A failed release holds until the desired state changes: the old keep serving; its own service, if one is left (a removal that did not take, a release failed elsewhere), goes. */
  | { kind: "hold"; remove: string[]; status: ObservedStatus }
  /** Make the release's service; a new release's pre-deploy hook (`preDeploy`) runs first, and a failure fails the release. */
  | { kind: "create"; spec: SwarmServiceSpec; status: ObservedStatus; preDeploy: string[] | null }
  /** Tasks still starting or answering their probes. */
  | { kind: "wait"; status: ObservedStatus; requeueAfterMs: number }
  /** Every task is running and ready: the post-deploy hook (`postDeploy`) runs, then the release switches to them (a failed hook fails it). */
  | { kind: "switch"; service: string; tasks: TaskPlacement[]; status: ObservedStatus; postDeploy: string[] | null }
  /** Switched: the old services serve requests in flight until the drain ends. */
  | { kind: "drain"; service: string; tasks: TaskPlacement[]; status: ObservedStatus; requeueAfterMs: number }
  /** Converged: remove what is left of older releases. */
  | { kind: "done"; service: string; tasks: TaskPlacement[]; remove: string[]; status: ObservedStatus; requeueAfterMs?: number };

const live = (t: SwarmTask) => t.desiredState === "running";
const pickHealth = (h: ReturnType<typeof swarmHealth>) => ({ crashLooping: h.crashLooping, restarts: h.restarts, lastExit: h.lastExit });
const failedTask = (t: SwarmTask) => t.state === "failed" || t.state === "rejected";

function running(image: string, service: string, tasks: TaskPlacement[], nodeNames: Record<string, string>): ObservedStatus {
  const on = [...new Set(tasks.map((t) => nodeNames[t.nodeId] ?? t.nodeId))].sort();
  return { phase: "running", step: null, image, activeContainer: service, message: `${tasks.length} task${tasks.length === 1 ? "" : "s"} on ${on.join(", ")}`, ...NO_RESTARTS };
}

/** How soon a pass looks again while a switched release's tasks fail (the engine replaces them; the status follows). */
export const UNHEALTHY_RECHECK_MS = 5_000;

/**
 * Pure: how a switched release's tasks are doing. The engine replaces a task that exits with a new
 * one (a restart, on a swarm): its failed tasks since `since` are the restarts (as many as the
 * engine's task history keeps, 5 per replica by default), the newest one's exit the last exit; at
 * least `CRASH_LOOP_RESTARTS` of them, the last within the window, is a crash loop, as on one engine.
 */
export function swarmHealth(s: ObservedReleaseService, since: number, now: number, nodeNames: Record<string, string>): Pick<ObservedStatus, "crashLooping" | "restarts" | "lastExit"> & { message: string } {
  const failed = s.tasks.filter((t) => failedTask(t) && t.updatedAt >= since).sort((a, b) => b.updatedAt - a.updatedAt);
  const last = failed[0];
  if (!last) return { ...NO_RESTARTS, message: "" };
  const restarts = failed.length;
  const crashLooping = restarts >= CRASH_LOOP_RESTARTS && now - last.updatedAt < CRASH_LOOP_WINDOW_MS;
  const where = last.nodeId ? ` on ${nodeNames[last.nodeId] ?? last.nodeId}` : "";
  const code = last.exitCode ?? "?";
  const times = `${restarts} restart${restarts === 1 ? "" : "s"}`;
  const message = crashLooping ? `tasks keep crashing (${times}, last exit code ${code}${where}); the swarm restarts them` : "";
  return { crashLooping, restarts, lastExit: { code: last.exitCode, at: new Date(last.updatedAt).toISOString() }, message };
}

function failedStatus(image: string, message: string, serving: ObservedReleaseService | undefined): ObservedStatus {
  const text = serving ? `${message}; ${serving.info.name} keeps serving` : message;
  return { phase: "failed", step: null, image, activeContainer: serving?.info.name ?? null, message: text, ...NO_RESTARTS };
}

/** A task's address on its service's network (the app's overlay), or undefined before the engine gave one. */
export function taskAddress(info: Pick<SwarmServiceInfo, "networks">, t: Pick<SwarmTask, "addresses">): string | undefined {
  return info.networks.map((n) => t.addresses[n]).find(Boolean);
}

/**
 * The release's running tasks with their address on the app's network (none while the engine has
 * not given one). A task on a lost node still says `running` until the manager gives up on it:
 * it is left out at once, so the data plane stops sending requests there.
 */
function placements(s: ObservedReleaseService, lost: readonly string[] = []): TaskPlacement[] {
  const out: TaskPlacement[] = [];
  for (const t of s.tasks) {
    if (!live(t) || t.state !== "running" || !t.nodeId || lost.includes(t.nodeId)) continue;
    const address = taskAddress(s.info, t);
    if (address) out.push({ taskId: t.id, nodeId: t.nodeId, address });
  }
  return out.sort((a, b) => a.taskId.localeCompare(b.taskId));
}

/** The newest failure of a task, with the node it failed on. */
function lastFailure(s: ObservedReleaseService, nodeNames: Record<string, string>): string {
  const t = s.tasks.filter(failedTask).sort((a, b) => b.updatedAt - a.updatedAt)[0];
  if (!t) return "";
  const where = t.nodeId ? ` on ${nodeNames[t.nodeId] ?? t.nodeId}` : "";
  return `${t.error || t.message || t.state}${where}`;
}

/**
 * Pure: the swarm secrets to remove once `removed` services are gone: those of no service left
 * (a release's secret lives as long as its service; one made by a pass that stopped before its
 * service was made is kept for the release still to make it).
 */
export function staleSecrets(
  secrets: readonly { id: string; service: string }[],
  services: readonly ObservedReleaseService[],
  removed: readonly string[],
  release: Pick<DesiredSwarmRelease, "outcome" | "spec"> | null,
): string[] {
  const keep = new Set(services.filter((s) => !removed.includes(s.info.id)).map((s) => s.info.name));
  if (release && release.outcome !== "failed" && release.outcome !== "superseded") keep.add(release.spec.name);
  return secrets.filter((x) => !keep.has(x.service)).map((x) => x.id);
}

/** Pure: the one next step; its status names where each copy that serves (the active service's tasks) runs. */
export function plan(d: SwarmDesired, o: SwarmObserved): SwarmStep {
  const step = nextStep(d, o);
  if (!("status" in step)) return step;
  const active = o.services.find((s) => s.info.name === step.status.activeContainer);
  const replicas = active ? placements(active, o.lostNodes).map((t) => ({ name: t.taskId, node: o.nodeNames[t.nodeId] ?? t.nodeId, address: t.address })) : [];
  return { ...step, status: { ...step.status, replicas } };
}

function nextStep(d: SwarmDesired, o: SwarmObserved): SwarmStep {
  const all = o.services.map((s) => s.info.id);
  if (!d.service) return { kind: "remove-all", remove: all };
  const r = d.release;
  if (!r) return { kind: "stopped", remove: all, status: stopped() };

  const mine = o.services.find((s) => s.info.name === r.spec.name);
  const others = o.services.filter((s) => s !== mine);
  // What serves while this release proves itself (or after it failed): the newest other service.
  const serving = [...others].sort((a, b) => b.info.createdAt - a.info.createdAt)[0];

  const leftover = mine ? [mine.info.id] : [];
  if (r.outcome === "failed") return { kind: "hold", remove: leftover, status: failedStatus(r.image, "the release failed", serving) };
  if (r.outcome === "superseded") return { kind: "hold", remove: leftover, status: failedStatus(r.image, "the release was superseded", serving) };

  if (!mine) {
    if (r.outcome === "succeeded") {
      // Switched before, and its service is gone (removed by hand): make it again; it serves once its tasks run.
      return { kind: "create", spec: r.spec, status: deploying(r.image, "starting", serving?.info.name ?? null, "its swarm service was gone; starting it again"), preDeploy: null };
    }
    const pre = r.hooks?.preDeploy ?? null;
    return { kind: "create", spec: r.spec, status: deploying(r.image, pre ? "pre-deploy" : "starting", serving?.info.name ?? null, ""), preDeploy: pre };
  }

  const tasks = placements(mine, o.lostNodes);
  if (r.outcome === "succeeded") {
    const health = swarmHealth(mine, r.finishedAt ?? mine.info.createdAt, o.now, o.nodeNames);
    if (tasks.length === 0) {
      const message = health.message ? `no task of the release runs: ${health.message}` : "no task of the release runs; the swarm is placing them";
      return { kind: "wait", status: { ...deploying(r.image, "starting", mine.info.name, message), ...pickHealth(health) }, requeueAfterMs: health.crashLooping ? UNHEALTHY_RECHECK_MS : WAIT_MS };
    }
    const up = running(r.image, mine.info.name, tasks, o.nodeNames);
    const status = { ...up, ...pickHealth(health), message: health.message ? `${up.message}; ${health.message}` : up.message };
    const drainEnds = (r.finishedAt ?? 0) + d.drainMs;
    if (others.length > 0 && o.now < drainEnds) return { kind: "drain", service: mine.info.name, tasks, status, requeueAfterMs: drainEnds - o.now };
    // Fewer tasks than replicas, or a loop still in its window: look again, so the status follows.
    const unhealthy = tasks.length < r.spec.replicas || health.crashLooping;
    return { kind: "done", service: mine.info.name, tasks, remove: others.map((s) => s.info.id), status, ...(unhealthy ? { requeueAfterMs: UNHEALTHY_RECHECK_MS } : {}) };
  }

  // Pending or deploying: every task must run and answer before the switch.
  const failures = mine.tasks.filter(failedTask).length;
  if (failures >= FAILED_TASKS_LIMIT) {
    const message = `its tasks failed ${failures} times (last: ${lastFailure(mine, o.nodeNames)})`;
    return { kind: "fail", message, remove: [mine.info.id], status: failedStatus(r.image, message, serving) };
  }
  const want = r.spec.replicas;
  const active = serving?.info.name ?? null;
  if (o.now - mine.info.createdAt > r.readyBudgetMs) {
    const unready = tasks.filter((t) => !o.probes[t.taskId]?.ready);
    const detail = tasks.length < want ? `${tasks.length} of ${want} tasks running` : `not ready: ${unready.map((t) => `${o.nodeNames[t.nodeId] ?? t.nodeId} ${o.probes[t.taskId]?.detail ?? "no answer"}`).join("; ")}`;
    const message = `the release did not get ready within ${Math.round(r.readyBudgetMs / 1000)} s (${detail})`;
    return { kind: "fail", message, remove: [mine.info.id], status: failedStatus(r.image, message, serving) };
  }
  if (tasks.length < want) {
    const pending = mine.tasks.filter((t) => live(t) && t.state !== "running");
    const why = pending.map((t) => t.error || t.message).find(Boolean);
    const message = `${tasks.length} of ${want} tasks running${why ? ` (${why})` : ""}`;
    return { kind: "wait", status: deploying(r.image, "starting", active, message), requeueAfterMs: WAIT_MS };
  }
  const ready = tasks.filter((t) => o.probes[t.taskId]?.ready);
  if (ready.length < tasks.length) {
    return { kind: "wait", status: deploying(r.image, "probing", active, `${ready.length} of ${tasks.length} tasks ready`), requeueAfterMs: WAIT_MS };
  }
  return { kind: "switch", service: mine.info.name, tasks, status: running(r.image, mine.info.name, tasks, o.nodeNames), postDeploy: r.hooks?.postDeploy ?? null };
}
