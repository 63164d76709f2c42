import type { ContainerCreateOptions } from "dockerode";
import type { ManagedContainer } from "@levelrail/docker";
import type { ActiveEntry } from "@levelrail/spec/dataplane";
import { Labels, containerName, isBuiltImageName } from "@levelrail/spec/naming";
import { containerOptions, probeUrl } from "./desired";
import { type HookRun, preDeployContainer } from "./hooks";
import { pullPolicy } from "./image";
import type { DesiredService, ObservedStatus } from "./ports";
import type { ProbeObservation } from "./prober";
import * as st from "./status";

/** What the controller wants: the service as stored (null: deleted) and the worker's settings. */
export interface Desired {
  serviceId: string;
  service: DesiredService | null;
  shortName: string;
  /** How long old containers keep running after the switch. */
  drainMs: number;
  /** Nameservers after the mesh DNS (the app network's gateway). */
  upstreamDns: string[];
  defaultHookTimeoutSeconds: number;
}

export type EnvObservation = { ok: true; env: Record<string, string>; secretKeys?: string[] } | { ok: false; problem: string };

/** What one pass saw. Fields a situation does not need are left unread (null). */
export interface Observed {
  now: number;
  /** The service's own containers (any not a pre-deploy hook's, an earlier version's unlabelled ones included). */
  containers: ManagedContainer[];
  /** Its pre-deploy hook containers (`isPreDeployContainer`: role label and name). */
  hookContainers: ManagedContainer[];
  /** The resolved environment; null when it was not needed. */
  env: EnvObservation | null;
  /** The engine's image id for the release's ref, read only while the release has none pinned. */
  localImageId: string | null;
  /** The release pins an image id the engine no longer has, and its container is still to be made. */
  pinnedImageGone?: boolean;
  /** The app network; null when missing or not needed. */
  network: { name: string; gateway: string } | null;
  /** Latest readiness probe per container id (from the prober manager). */
  probes: Record<string, ProbeObservation>;
}

type Options = ContainerCreateOptions & { name: string };

/** The one next step. Steps that change something return at once for the next pass to observe the result. */
export type Step =
  /** The service is gone: remove everything of it; no status (there is no row to write). */
  | { kind: "remove-all"; remove: ManagedContainer[] }
  /** No release: remove everything and report stopped. */
  | { kind: "stopped"; remove: ManagedContainer[]; status: ObservedStatus }
  /** A failed release is final until the desired state changes: no Docker writes; the serving container stays published. */
  | { kind: "hold-failed"; publish: ActiveEntry | null; status: ObservedStatus }
  /** The deploy cannot go on: remove the new container if any, fail the release. `logsOf`: append that container's last output. */
  | { kind: "fail"; message: string; remove: ManagedContainer | null; logsOf: ManagedContainer | null; active: ManagedContainer | null }
  | { kind: "pull"; ref: string; active: ManagedContainer | null }
  /** The engine has the release's image: pin it once this service is proven to be allowed it (`cachedImageAccess`). */
  | { kind: "pin-image"; ref: string; imageId: string; active: ManagedContainer | null }
  | { kind: "ensure-network" }
  /** Hook containers nothing explains (an older release's, or one left after the service container exists). */
  | { kind: "remove-leftovers"; remove: ManagedContainer[] }
  /** The release leaves `pending`. */
  | { kind: "begin" }
  /** Runs the pre-deploy hook (adopting its container after a crash), stops old ones first under `recreate`, creates the container. */
  | { kind: "create"; options: Options; preDeploy: { options: Options; run: HookRun } | null; stopFirst: ManagedContainer[]; active: ManagedContainer | null }
  | { kind: "start"; container: ManagedContainer; status: ObservedStatus }
  /** Registers the container with the prober manager, which wakes the key when it is ready or out of budget. */
  | { kind: "await-readiness"; container: ManagedContainer; url: string | null; since: number; budgetMs: number; status: ObservedStatus }
  /**
   * Ready: run the post-deploy hook (a real cutover only), then make it the active container.
   * `replacement`: the release had already switched (it stays as recorded); this container replaces
   * its live one (one an earlier version named, or one removed by hand), and the probe's time is the switch's.
   */
  | { kind: "switch"; container: ManagedContainer; postDeploy: HookRun | null; cutover: boolean; replacement: boolean; others: number; active: ManagedContainer | null }
  /** The new container is active; the old ones serve requests in flight until the drain ends. */
  | { kind: "drain"; publish: ActiveEntry; status: ObservedStatus; requeueAfterMs: number }
  /** Converged: remove what is left; a live container that crashes is the engine's to restart. */
  | { kind: "done"; publish: ActiveEntry; remove: ManagedContainer[]; status: ObservedStatus; requeueAfterMs: number | null };

const isRunning = (c: ManagedContainer) => c.state === "running";
/** How long a live container may stay exited (not restarting) before the worker starts it itself. */
export const ENGINE_RESTART_GRACE_MS = 10_000;
/** The switch gives a container `unless-stopped`: from then on its crashes are the engine's to restart. */
export const isLive = (c: ManagedContainer) => c.restartPolicy === "unless-stopped";

/** The name of the container that runs `rel` of `svc`, once its image id is pinned. */
export function releaseContainerName(shortName: string, svc: Pick<DesiredService, "id" | "name">, imageId: string, restartNonce: string): string {
  return containerName(shortName, svc.name, { serviceId: svc.id, imageId, restartNonce });
}

/** Pure: the one next step from what is wanted and what was seen. */
export function plan(d: Desired, o: Observed): Step {
  const svc = d.service;
  const all = [...o.containers, ...o.hookContainers];
  if (!svc) return { kind: "remove-all", remove: all };
  const rel = svc.release;
  if (!rel) return { kind: "stopped", remove: all, status: st.stopped() };
  const image = rel.spec.image;
  const entry = (c: ManagedContainer): ActiveEntry => ({ appId: svc.appId, app: svc.appName, service: svc.name, container: c.name, port: rel.spec.port });

  if (rel.outcome === "failed") {
    // The container that keeps serving (even while the engine restarts it) stays the mesh name's answer.
    const serving = o.containers.find(isRunning) ?? o.containers.find((c) => c.state === "restarting") ?? null;
    return { kind: "hold-failed", publish: serving ? entry(serving) : null, status: st.failed(image, serving, rel.message, o.now) };
  }

  const serving = o.containers.find(isRunning) ?? null;
  const pinned = rel.imageId;
  const targetName = pinned === null ? null : releaseContainerName(d.shortName, svc, pinned, rel.restartNonce);
  const target = o.containers.find((c) => c.name === targetName);
  const others = o.containers.filter((c) => c.name !== targetName);

  // Live: the release succeeded and its container was switched to (`unless-stopped`), whatever state the
  // engine keeps it in now. One made again proves itself and is switched to first, a blue-green
  // replacement of the live one: removed by hand, or named by an earlier version (whose name left out
  // the service's id), which serves until the new one has taken the traffic over, then drains.
  if (rel.outcome === "succeeded" && target && isLive(target)) {
    if (o.hookContainers.length > 0) return { kind: "remove-leftovers", remove: o.hookContainers };
    // A replacement's switch leaves the release as it was: its readiness (or, after a worker restart,
    // its start) is when the traffic moved.
    // Exited and not restarting: the engine gave up on it (a restart that failed, such as "task …
    // already exists" after an engine restart). After a grace for the engine's own restart, start it.
    if (target.state === "exited") {
      const graceLeft = target.finishedAt + ENGINE_RESTART_GRACE_MS - o.now;
      if (graceLeft <= 0) {
        const status = { ...st.running(image, target, o.now), message: `${target.name} exited with code ${target.exitCode ?? "?"} and the engine did not restart it; starting it again` };
        return { kind: "start", container: target, status };
      }
      return { kind: "done", publish: entry(target), remove: others, status: st.running(image, target, o.now), requeueAfterMs: graceLeft };
    }
    const probe = o.probes[target.id];
    const switchedAt = Math.max(rel.finishedAt ?? 0, target.startedAt, probe?.ready ? (probe.at ?? 0) : 0);
    const drainLeft = switchedAt + d.drainMs - o.now;
    if (others.length > 0 && drainLeft > 0) {
      const status = st.deploying(image, "cutover", target.name, `${target.name} is active; draining ${others.length} old container(s) for ${Math.ceil(drainLeft / 100) / 10}s`);
      return { kind: "drain", publish: entry(target), status, requeueAfterMs: drainLeft };
    }
    return { kind: "done", publish: entry(target), remove: others, status: st.running(image, target, o.now), requeueAfterMs: st.crashLoopEndsInMs(target, o.now) };
  }

  // Every declared value must resolve before anything is pulled or started.
  if (!o.env) throw new Error("plan: the environment was not observed");
  if (!o.env.ok) return { kind: "fail", message: o.env.problem, remove: null, logsOf: null, active: serving };
  if (pinned === null) {
    return o.localImageId === null || (pullPolicy(image) === "always" && !isBuiltImageName(d.shortName, image))
      ? { kind: "pull", ref: image, active: serving }
      : { kind: "pin-image", ref: image, imageId: o.localImageId, active: serving };
  }
  if (!o.network) return { kind: "ensure-network" };

  const options = containerOptions({
    shortName: d.shortName,
    serviceId: svc.id,
    service: svc.name,
    appId: svc.appId,
    appName: svc.appName,
    environmentId: svc.environmentId,
    releaseId: rel.id,
    imageId: pinned,
    restartNonce: rel.restartNonce,
    spec: rel.spec,
    env: o.env.env,
    secretKeys: o.env.secretKeys ?? [],
    dns: [o.network.gateway, ...d.upstreamDns],
  });
  // A succeeded release that gets here replaces its live container: no deploy, so no hook runs again.
  const replacement = rel.outcome === "succeeded";
  const preArgv = replacement ? undefined : rel.spec.hooks.preDeploy;
  const preDeploy = preArgv ? preDeployContainer(options, preArgv) : null;
  // Only this release's hook container, before its service container exists, is adopted (a crash mid-hook);
  // any other (an older release's, even under the same name) is a leftover.
  const adoptable = (c: ManagedContainer) => !target && c.name === preDeploy?.name && c.labels[Labels.release] === rel.id;
  const leftovers = o.hookContainers.filter((c) => !adoptable(c));
  if (leftovers.length > 0) return { kind: "remove-leftovers", remove: leftovers };
  if (rel.outcome === "pending") return { kind: "begin" };

  const othersServing = others.find(isRunning) ?? null;
  const hookRun = (phase: "pre" | "post", argv: string[]): HookRun => ({
    serviceId: svc.id,
    releaseId: rel.id,
    phase,
    argv,
    timeoutSeconds: rel.spec.hooks.timeoutSeconds ?? d.defaultHookTimeoutSeconds,
  });

  if (!target) {
    // Removed from the host since it was pinned (by hand, or collected): an exact image id cannot be
    // pulled again by its tag, which may name another image by now.
    if (o.pinnedImageGone) {
      const message = `image ${pinned} (${image}), which this release runs, is no longer on this host; deploy ${image} again to pull it`;
      return { kind: "fail", message, remove: null, logsOf: null, active: othersServing };
    }
    const stopFirst = rel.spec.strategy === "recreate" ? others : [];
    return {
      kind: "create",
      options,
      preDeploy: preDeploy && preArgv ? { options: preDeploy, run: hookRun("pre", preArgv) } : null,
      stopFirst,
      active: othersServing,
    };
  }
  if (target.state === "exited" || target.state === "dead" || target.restartCount > 0) {
    const message = `${target.name} exited with code ${target.exitCode ?? "?"} before it was ready`;
    return { kind: "fail", message, remove: target, logsOf: target, active: othersServing };
  }
  if (target.state === "created") return { kind: "start", container: target, status: st.deploying(image, "starting", othersServing?.name ?? null, `starting ${target.name}`) };

  const { healthPath, port, readyBudgetSeconds } = rel.spec;
  const address = target.addresses[o.network.name];
  const probe = o.probes[target.id];
  if (probe?.ready) {
    // A real cutover: this release made the container (a no-op Deploy adopts the running one and runs no hook).
    const cutover = !replacement && target.labels[Labels.release] === rel.id;
    const postArgv = rel.spec.hooks.postDeploy;
    return { kind: "switch", container: target, postDeploy: cutover && postArgv ? hookRun("post", postArgv) : null, cutover, replacement, others: others.length, active: othersServing };
  }
  const detail = probe?.detail ?? (address ? "not probed yet" : "no address on the app network yet");
  const budgetMs = readyBudgetSeconds * 1000;
  const elapsed = o.now - target.createdAt;
  // Out of budget fails only once the prober has answered: an adopted container (a no-op Deploy, a
  // restarted worker) gets its one probe first, as a fresh one would.
  if (elapsed >= budgetMs && (probe || !address)) {
    const message = `${target.name} was not ready within ${readyBudgetSeconds}s (GET ${healthPath} on port ${port}: ${detail})`;
    return { kind: "fail", message, remove: target, logsOf: null, active: othersServing };
  }
  const status = st.deploying(image, "probing", othersServing?.name ?? null, `waiting for ${target.name} to be ready (GET ${healthPath}: ${detail}, ${Math.round(elapsed / 1000)}s of ${readyBudgetSeconds}s)`);
  return { kind: "await-readiness", container: target, url: address ? probeUrl(address, rel.spec) : null, since: target.createdAt, budgetMs, status };
}
