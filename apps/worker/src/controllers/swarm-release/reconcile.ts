import type { SwarmPort } from "@levelrail/docker/swarm";
import type { ActiveEntry, MeshPort } from "@levelrail/spec/dataplane";
import { Labels } from "@levelrail/spec/naming";
import type { StatusWriter } from "../application/ports";
import { probeUrl } from "../application/desired";
import { SWARM_SERVICE_LABEL, releaseSecretName, secretEnvFile, withSecretEnv } from "./desired";
import { type DesiredSwarmRelease, type ObservedReleaseService, type SwarmStep, type TaskPlacement, WAIT_MS, plan, staleSecrets, taskAddress } from "./plan";
import type { TaskProber } from "./probe";

// Observe → plan → execute for one service's releases on a swarm. Observing costs one listing of
// the installation's services for this service's label and one task listing per release service;
// probes run only while a release proves itself.

export interface SwarmReleaseDeps {
  shortName: string;
  swarm: Pick<
    SwarmPort,
    "listServices" | "listTasks" | "createService" | "removeService" | "listNodes" | "resolveImage" | "imageProcess" | "listSecrets" | "createSecret" | "removeSecret"
  >;
  /** Makes the app's overlay network when missing (`ensureAppOverlay`, bound). */
  ensureNetwork(appId: string): Promise<void>;
  prober: TaskProber;
  status: StatusWriter;
  /** The data plane: told the release's ready tasks at the switch (what the mesh name and the domains answer). */
  active?: MeshPort;
  drainMs: number;
  probeTimeoutMs?: number;
  now?: () => number;
}

export interface SwarmReleaseInput {
  serviceId: string;
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
  const [listed, secrets] = await Promise.all([deps.swarm.listServices(mineFilter), deps.swarm.listSecrets(mineFilter)]);
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

/** One pass; resolves to when the next is due (ms), or null when nothing is pending. */
export async function reconcileSwarmRelease(deps: SwarmReleaseDeps, input: SwarmReleaseInput): Promise<{ step: SwarmStep["kind"]; requeueAfterMs: number | null }> {
  const now = (deps.now ?? Date.now)();
  const observed = await observe(deps, input, now);
  const step = plan({ service: input.service ? { id: input.serviceId } : null, release: input.release, drainMs: deps.drainMs }, observed);
  // A removed service's secret goes with it (the engine refuses while a service uses it).
  const remove = async (ids: string[]) => {
    await Promise.all(ids.map((id) => deps.swarm.removeService(id)));
    await Promise.all(staleSecrets(observed.secrets, observed.services, ids, input.release).map((id) => deps.swarm.removeSecret(id)));
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
      if (!input.service) throw new Error("unreachable: create without a service");
      if (r?.outcome === "pending") await deps.status.updateRelease(r.id, { outcome: "deploying" });
      await deps.ensureNetwork(input.service.appId);
      // Pinned to the digest the registry has now, so every node runs the same bits (an image no
      // registry has stays as named: only a node that has it can run it, and the plan says so).
      const auth = step.spec.registryAuth ?? null;
      const image = (await deps.swarm.resolveImage(step.spec.image, auth)) ?? step.spec.image;
      let spec = { ...step.spec, image };
      if (r && Object.keys(r.secretEnv).length > 0) {
        // The loader goes in front of what the image runs, so the manager reads that from its copy.
        const process = await deps.swarm.imageProcess(image, auth);
        if (!process) {
          const message = `the manager could not pull ${r.image} to read what it runs (its secrets are loaded before it starts); check the image's name and the service's registry credential`;
          await deps.status.updateRelease(r.id, { outcome: "failed", message });
          return { step: "fail", requeueAfterMs: 0 };
        }
        spec = withSecretEnv(spec, await releaseSecret(deps, input.serviceId, step.spec.name, r.secretEnv, observed.secrets), process);
      }
      // A taken name (null) is this release's own service made by an earlier pass: the next pass observes it.
      await deps.swarm.createService(spec);
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: WAIT_MS };
    }
    case "wait":
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: step.requeueAfterMs };
    case "switch": {
      if (!input.service || !r) throw new Error("unreachable: switch without a release");
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
      await remove(step.remove);
      await deps.status.setStatus(input.serviceId, step.status);
      return { step: step.kind, requeueAfterMs: null };
  }
}
