import type { ImagePort, RegistryAuth } from "@levelrail/docker";
import type { SwarmPort } from "@levelrail/docker/swarm";
import type { ActiveEntry, MeshPort } from "@levelrail/spec/dataplane";
import { Labels, Roles, isBuiltImageName, noSuchImage, unresolvableBuiltName } from "@levelrail/spec/naming";
import { type AccessSubject, type ImageOwner, type RegistryConfirmations, builtImageAccess, cachedImageAccess } from "../application/image";
import type { HookPhase, HookRecorder } from "../application/hooks";
import type { StatusWriter } from "../application/ports";
import { deploying } from "../application/status";
import { probeUrl } from "../application/desired";
import { SWARM_SERVICE_LABEL, releaseSecretName, secretEnvFile, withMeshDns, withSecretEnv } from "./desired";
import { hookJobSpec, runHookJob } from "./hooks";
import { type DesiredSwarmRelease, type ObservedReleaseService, type SwarmStep, type TaskPlacement, WAIT_MS, plan, staleSecrets, taskAddress } from "./plan";
import type { TaskProber } from "./probe";

// Observe → plan → execute for one service's releases on a swarm. Observing costs one listing of
// the installation's services for this service's label and one task listing per release service;
// probes run only while a release proves itself.

/**
 * The longest a release's old tasks wait, after the drain, for nodes' edges to apply the switch:
 * past the ~30 s an agent cannot reach the feed after the manager's engine restarts (the overlay's
 * gossip), so a release then does not remove tasks a node's Caddy still sends requests to. Old
 * tasks kept longer cost only their resources; removed early, requests through that node.
 */
export const EDGE_WAIT_MS = 45_000;

export interface SwarmReleaseDeps {
  shortName: string;
  swarm: Pick<
    SwarmPort,
    "listServices" | "listTasks" | "createService" | "removeService" | "listNodes" | "resolveImage" | "imageProcess" | "listSecrets" | "createSecret" | "removeSecret"
    | "inspectService" | "serviceLogs"
  >;
  /**
   * The manager's engine: its copy of a release's image (if any) is checked as on one engine, and the
   * registry's reason asked when it does not confirm a login.
   */
  images: Pick<ImagePort, "imageId" | "imageRepoDigests" | "imageOrigin" | "registryAccess" | "tagImage">;
  /** A service's organization (null: no such service), to tell whose a built image is; absent: a built image's label alone decides. */
  serviceOrgs?: ((serviceId: string) => Promise<string | null>) | undefined;
  /** Registry confirmations of cached images, kept a short while (absent: every release asks the registry). */
  confirmations?: RegistryConfirmations | undefined;
  /** Where hook runs are kept (as on one engine); without one, hooks still run and gate the release. */
  hooks?: HookRecorder;
  /** Makes the app's overlay network when missing (`ensureAppOverlay`, bound). */
  ensureNetwork(appId: string): Promise<void>;
  /**
   * Joins the databases the service attaches (containers on the manager's engine) to the app's
   * overlay, under their names, so its tasks on every node reach them; rejects while one is not
   * running yet (the pass is retried). Absent: no database is joined.
   */
  attachDatabases?(serviceId: string): Promise<void>;
  /**
   * The tasks' nameservers on the app's overlay: the mesh DNS's address there (the edge namespace's),
   * then the upstream servers. Absent or empty: the engine's resolver (no mesh names).
   */
  nameservers?(appId: string): Promise<string[]>;
  prober: TaskProber;
  status: StatusWriter;
  /** The data plane: told the release's ready tasks at the switch (what the mesh name and the domains answer). */
  active?: MeshPort;
  /**
   * The nodes whose own edge (a node agent's copy of the data plane) has not applied the state
   * that routes `serviceId` as it is now: a release's old tasks are removed only once none is
   * behind (or `EDGE_WAIT_MS` after the drain ended). Absent: the manager's edge only.
   */
  edgesBehind?(serviceId: string): string[] | Promise<string[]>;
  drainMs: number;
  probeTimeoutMs?: number;
  now?: () => number;
}

export interface SwarmReleaseInput {
  serviceId: string;
  /** The service's organization (whose built images and registry logins it may use); absent: none's. */
  orgId?: string;
  /** Null: the service was deleted. */
  service: { appId: string; appName: string; name: string; port: number; healthPath: string } | null;
  release: DesiredSwarmRelease | null;
}

/** Node id → how messages name it: its hostname, with its address where hostnames repeat (hosts cloned from one image). */
export function nodeLabels(nodes: readonly { id: string; hostname: string; name: string; address: string }[]): Record<string, string> {
  const names = nodes.map((n) => n.hostname || n.name);
  return Object.fromEntries(nodes.map((n, i) => [n.id, names.filter((x) => x === names[i]).length > 1 ? `${names[i]} (${n.address})` : names[i]!]));
}

async function observe(deps: SwarmReleaseDeps, input: SwarmReleaseInput, now: number) {
  const mineFilter = [`${Labels.instance}=${deps.shortName}`, `${Labels.service}=${input.serviceId}`];
  // The release services only (a hook's job carries its own role).
  const [listed, secrets] = await Promise.all([deps.swarm.listServices([...mineFilter, `${Labels.role}=${Roles.service}`]), deps.swarm.listSecrets(mineFilter)]);
  const services: ObservedReleaseService[] = await Promise.all(listed.map(async (info) => ({ info, tasks: await deps.swarm.listTasks(info.id) })));
  const nodes = await deps.swarm.listNodes();
  const nodeNames = nodeLabels(nodes);
  const probes: Record<string, { ready: boolean; detail: string }> = {};
  const r = input.release;
  const mine = r && services.find((s) => s.info.name === r.spec.name);
  if (input.service && r && mine && (r.outcome === "pending" || r.outcome === "deploying")) {
    const { appId, port, healthPath } = input.service;
    const runningTasks = mine.tasks.filter((t) => t.desiredState === "running" && t.state === "running");
    await Promise.all(
      runningTasks.map(async (t) => {
        const address = taskAddress(mine.info, t);
        if (address) probes[t.id] = await deps.prober.probe(appId, probeUrl(address, { port, healthPath }), deps.probeTimeoutMs ?? 2_000);
      }),
    );
  }
  const lostNodes = nodes.filter((n) => n.state !== "ready").map((n) => n.id);
  return { now, services, probes, nodeNames, lostNodes, secrets: secrets.map((x) => ({ id: x.id, name: x.name, service: x.labels[SWARM_SERVICE_LABEL] ?? "" })) };
}

type ObservedSecret = { id: string; name: string; service: string };

/** The release's swarm secret (made by an earlier pass, or now): secrets are immutable, so one made stays what the release runs with. */
async function releaseSecret(deps: SwarmReleaseDeps, serviceId: string, serviceName: string, env: Record<string, string>, observed: readonly ObservedSecret[]) {
  const made = observed.find((x) => x.service === serviceName);
  if (made) return made;
  const name = releaseSecretName(serviceName);
  const labels = { [Labels.managed]: "true", [Labels.instance]: deps.shortName, [Labels.service]: serviceId, [SWARM_SERVICE_LABEL]: serviceName };
  return { id: await deps.swarm.createSecret(name, labels, secretEnvFile(env)), name };
}

/** What the data plane answers for the service: its release's ready tasks on the app's overlay. */
export function activeEntry(service: NonNullable<SwarmReleaseInput["service"]>, swarmService: string, tasks: TaskPlacement[]): ActiveEntry {
  return { appId: service.appId, app: service.appName, service: service.name, container: swarmService, port: service.port, tasks: tasks.map((t) => ({ name: t.taskId, address: t.address })) };
}

/**
 * The release's service spec as it is made: the mesh DNS as its tasks' resolver, and with its
 * secrets, the loader in front of the image's own process (read from the manager's copy of the
 * image). A string: why it cannot be made.
 */
async function loadedSpec(deps: SwarmReleaseDeps, input: SwarmReleaseInput, r: DesiredSwarmRelease, base: DesiredSwarmRelease["spec"], secrets: readonly ObservedSecret[]): Promise<DesiredSwarmRelease["spec"] | string> {
  const nameservers = input.service ? ((await deps.nameservers?.(input.service.appId)) ?? []) : [];
  const spec = nameservers.length > 0 && input.service ? withMeshDns(base, deps.shortName, input.service.appName, nameservers) : base;
  if (Object.keys(r.secretEnv).length === 0) return spec;
  const process = await deps.swarm.imageProcess(spec.image, spec.registryAuth ?? null);
  if (!process) return `the manager could not pull ${r.image} to read what it runs (its secrets are loaded before it starts); check the image's name and the service's registry credential`;
  return withSecretEnv(spec, await releaseSecret(deps, input.serviceId, r.spec.name, r.secretEnv, secrets), process);
}

function runHook(deps: SwarmReleaseDeps, input: SwarmReleaseInput, r: DesiredSwarmRelease, phase: HookPhase, argv: string[], spec: DesiredSwarmRelease["spec"]) {
  const run = { serviceId: input.serviceId, releaseId: r.id, phase, argv, timeoutSeconds: r.hooks?.timeoutSeconds ?? 300 };
  return runHookJob(deps.swarm, deps.hooks, run, hookJobSpec(spec, phase, argv));
}

/** The release failed (its services in `remove` go, with their secrets): the next pass holds it and says so. */
async function failRelease(deps: SwarmReleaseDeps, input: SwarmReleaseInput, releaseId: string, message: string, remove: string[]) {
  await Promise.all(remove.map((id) => deps.swarm.removeService(id)));
  await deps.status.updateRelease(releaseId, { outcome: "failed", message });
  return { step: "fail" as const, requeueAfterMs: 0 };
}

/**
 * The image every node of the swarm runs for a release, after the checks one engine makes: pinned to
 * the digest the registry confirms to this service's login (or none), so every node runs those bits
 * and no node's cached copy (another organization's private pull) stands in for it. A registry that
 * does not confirm the login never leaves the tag to the nodes: the release fails, with the message
 * one engine gives (the manager's cached copy refused, or the pull's error). Only an image built on
 * the manager's host (no registry has it under that name), of this organization when it is a
 * built one, runs as named: nodes that have it.
 */
export async function releaseImage(deps: SwarmReleaseDeps, input: SwarmReleaseInput, ref: string, auth: RegistryAuth | null): Promise<{ ok: true; image: string } | { ok: false; message: string }> {
  const owner = { shortName: deps.shortName, orgId: input.orgId ?? "", ...(deps.serviceOrgs ? { orgOfService: deps.serviceOrgs } : {}), ...(deps.confirmations ? { confirmations: deps.confirmations } : {}) };
  return swarmImage(deps.images, deps.swarm, owner, ref, auth);
}

/** `releaseImage` for any swarm service that names an image (a release's, a pinned database's server): who asks is `owner` (`who` in the refusal). */
export async function swarmImage(
  images: SwarmReleaseDeps["images"],
  swarm: Pick<SwarmPort, "resolveImage">,
  owner: ImageOwner,
  ref: string,
  auth: RegistryAuth | null,
  who?: AccessSubject,
): Promise<{ ok: true; image: string } | { ok: false; message: string }> {
  const local = await images.imageId(ref);
  // A built image is never asked of a registry (an old name would read as Docker Hub's).
  if (isBuiltImageName(owner.shortName, ref)) {
    if (local === null) return { ok: false, message: noSuchImage(ref) };
    const built = await builtImageAccess(images, ref, local, owner);
    if (built.kind !== "ok") return { ok: false, message: built.kind === "refused" ? built.message : noSuchImage(ref) };
    // An image built before under a name that reads as Docker Hub's: the nodes get the unresolvable one,
    // so a node without it fails its task rather than asking Docker Hub.
    const name = unresolvableBuiltName(ref);
    if (name !== ref) await images.tagImage(local, name);
    return { ok: true, image: name };
  }
  let hostBuilt = false;
  if (local !== null) {
    const access = await cachedImageAccess(images, ref, local, auth, owner, who);
    if (access.kind === "refused") return { ok: false, message: access.message };
    hostBuilt = access.kind === "ok";
  }
  const pinnedRef = await swarm.resolveImage(ref, auth);
  if (pinnedRef) return { ok: true, image: pinnedRef };
  // Came from no registry under this name (built on the manager's host): only nodes that have it can run it (the plan says so).
  if (hostBuilt) return { ok: true, image: ref };
  const access = await images.registryAccess(ref, auth);
  return { ok: false, message: `image ${ref} could not be pulled: ${access.ok ? "its registry answered no digest to pin every node to" : access.reason}` };
}

/** One pass; resolves to when the next is due (ms), or null when nothing is pending. */
export async function reconcileSwarmRelease(deps: SwarmReleaseDeps, input: SwarmReleaseInput): Promise<{ step: SwarmStep["kind"]; requeueAfterMs: number | null }> {
  const now = (deps.now ?? Date.now)();
  const observed = await observe(deps, input, now);
  const step = plan({ service: input.service ? { id: input.serviceId } : null, release: input.release, drainMs: deps.drainMs }, observed);
  // A removed service's secret goes with it (the engine refuses while a service uses it).
  const remove = async (ids: string[]) => {
    await Promise.all(ids.map((id) => deps.swarm.removeService(id)));
    // One a hook's job still uses (a removal that did not take) is the engine's refusal: the next removal tries again.
    const stale = staleSecrets(observed.secrets, observed.services, ids, input.release);
    await Promise.all(stale.map((id) => deps.swarm.removeSecret(id).catch((err: unknown) => { if (!/in use/i.test(String((err as Error)?.message))) throw err; })));
  };
  const r = input.release;
  switch (step.kind) {
    case "remove-all":
      await deps.active?.setActive(input.serviceId, null);
      await remove(step.remove);
      return { step: step.kind, requeueAfterMs: null };
    case "stopped":
      await deps.active?.setActive(input.serviceId, null);
      await remove(step.remove);
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: null };
    case "hold":
      await remove(step.remove);
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: null };
    case "fail":
      await remove(step.remove);
      if (r) await deps.status.updateRelease(r.id, { outcome: "failed", message: step.message });
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: null };
    case "create": {
      if (!input.service || !r) throw new Error("unreachable: create without a release");
      if (r.outcome === "pending") await deps.status.updateRelease(r.id, { outcome: "deploying" });
      await deps.ensureNetwork(input.service.appId);
      await deps.attachDatabases?.(input.serviceId);
      const checked = await releaseImage(deps, input, step.spec.image, step.spec.registryAuth ?? null);
      if (!checked.ok) return failRelease(deps, input, r.id, checked.message, []);
      const image = checked.image;
      const spec = await loadedSpec(deps, input, r, { ...step.spec, image }, observed.secrets);
      if (typeof spec === "string") return failRelease(deps, input, r.id, spec, []);
      if (step.preDeploy) {
        await deps.status.setStatus(input.serviceId, step.status);
        const hook = await runHook(deps, input, r, "pre", step.preDeploy, spec);
        if (!hook.ok) return failRelease(deps, input, r.id, hook.message, []);
        await deps.status.setStatus(input.serviceId, deploying(r.image, "starting", step.status.activeContainer, ""));
      }
      // A taken name (null) is this release's own service made by an earlier pass: the next pass observes it.
      await deps.swarm.createService(spec);
      if (!step.preDeploy) await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: WAIT_MS };
    }
    case "wait":
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: step.requeueAfterMs };
    case "switch": {
      if (!input.service || !r) throw new Error("unreachable: switch without a release");
      if (step.postDeploy) {
        const mine = observed.services.find((x) => x.info.name === step.service);
        await deps.status.setStatus(input.serviceId, deploying(r.image, "post-deploy", observed.services.find((x) => x !== mine)?.info.name ?? null, ""));
        // The job runs the very image the tasks run (pinned), with their secrets.
        const spec = await loadedSpec(deps, input, r, { ...r.spec, image: mine?.info.image || r.spec.image }, observed.secrets);
        const hook = typeof spec === "string" ? { ok: false as const, message: spec } : await runHook(deps, input, r, "post", step.postDeploy, spec);
        if (!hook.ok) return failRelease(deps, input, r.id, hook.message, mine ? [mine.info.id] : []);
      }
      await deps.active?.setActive(input.serviceId, activeEntry(input.service, step.service, step.tasks));
      await deps.status.updateRelease(r.id, { outcome: "succeeded", container: step.service });
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: 0 };
    }
    case "drain":
      if (input.service) await deps.active?.setActive(input.serviceId, activeEntry(input.service, step.service, step.tasks));
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: step.requeueAfterMs };
    case "done":
      if (input.service) await deps.active?.setActive(input.serviceId, activeEntry(input.service, step.service, step.tasks));
      if (step.remove.length > 0 && deps.edgesBehind) {
        // Every node's Caddy must route to the new tasks before the old ones go.
        const behind = await deps.edgesBehind(input.serviceId);
        if (behind.length > 0 && now < (r?.finishedAt ?? 0) + deps.drainMs + EDGE_WAIT_MS) {
          await deps.status.setStatus(input.serviceId, step.status);
          return { step: "drain", requeueAfterMs: 250 };
        }
      }
      await remove(step.remove);
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: step.requeueAfterMs ?? null };
  }
}
