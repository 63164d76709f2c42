import { createHash } from "node:crypto";
import type { RegistryAuth } from "@levelrail/docker";
import type { ImageProcess, SwarmServiceSpec } from "@levelrail/docker/swarm";
import { ENV_KEY_RE } from "@levelrail/spec/checks";
import { Roles, meshZone, networkName, serviceLabels } from "@levelrail/spec/naming";
import { type ReleaseSpec, type Resources, placementOf, replicasOf, resourcesOf } from "@levelrail/spec/service";
import { hostLimits } from "../../containers/limits";
import type { DesiredSwarmRelease } from "./plan";
import type { SwarmReleaseInput } from "./reconcile";

// On a swarm (docs/operating/nodes-and-swarm.md) each release of a service is a swarm service of its own: blue-green is
// two services side by side until the new one's every task is ready, never an in-place update (an
// update's rollout replaces tasks one by one, so old and new would serve together for its length).

/** What one release asks of the swarm: the release spec's fields that reach its tasks. */
export interface SwarmRelease {
  serviceId: string;
  /** The service's name: the swarm service's name is made from it. */
  service: string;
  appId: string;
  environmentId: string;
  releaseId: string;
  restartNonce: string;
  /** The image reference every node pulls (by its digest when the release pinned one). */
  image: string;
  port: number;
  healthPath: string;
  replicas: number;
  /** Node label → value every task's node must carry. */
  placement: Record<string, string>;
  /** The resolved environment, secrets excluded (they never go into a service's spec: `docker service inspect` shows env; `withSecretEnv` adds them). */
  env: Record<string, string>;
  readyBudgetSeconds: number;
  /** What each task may use (the release's limits); absent: the defaults (no memory or CPU limit, the pids limit). */
  resources?: Resources;
}

/** `<short>-<service>-<hash of service id, release id, restart nonce>`: each release (and each restart of it) a service of its own. */
export function releaseServiceName(shortName: string, r: Pick<SwarmRelease, "service" | "serviceId" | "releaseId" | "restartNonce">): string {
  const hash = createHash("sha256").update(`${r.serviceId}\n${r.releaseId}\n${r.restartNonce}`).digest("hex").slice(0, 12);
  return `${shortName}-${r.service}-${hash}`;
}

/** Placement as the engine's constraints: `node.labels.<key>==<value>`, sorted so equal placements compare equal. */
export function placementConstraints(placement: Record<string, string>): string[] {
  return Object.entries(placement)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `node.labels.${k}==${v}`);
}

/** Pure: the swarm service one release runs as. */
export function releaseServiceSpec(shortName: string, r: SwarmRelease, registryAuth: RegistryAuth | null): SwarmServiceSpec {
  const labels = { ...serviceLabels(shortName, r, Roles.service), "levelrail.image": r.image };
  // The same limits and capabilities as the service's container on one engine.
  const host = hostLimits("service", resourcesOf(r.resources));
  return {
    name: releaseServiceName(shortName, r),
    image: r.image,
    replicas: r.replicas,
    labels,
    containerLabels: labels,
    env: { ...r.env },
    // No alias: the mesh DNS answers the service's name with the active release's tasks only
    // (an alias would also answer with a release still proving itself, or one draining).
    networks: [{ target: networkName(shortName, r.appId), aliases: [] }],
    constraints: placementConstraints(r.placement),
    // Replicas spread over the nodes (the scheduler's default spreads by task count; this makes
    // it explicit per node), so one node's loss takes at most its share.
    spreadOver: ["node.id"],
    secrets: [],
    limits: { memoryBytes: host.Memory ?? null, nanoCpus: host.NanoCpus ?? null, pids: host.PidsLimit ?? resourcesOf(undefined).pids },
    capabilities: { add: host.CapAdd ?? [], drop: host.CapDrop ?? ["ALL"] },
    stopGraceSeconds: 10,
    updateOrder: "start-first",
    // Addresses of the tasks, not a VIP: the data plane routes to the tasks it knows are ready.
    endpointMode: "dnsrr",
    registryAuth,
  };
}

/**
 * A release's secrets reach its tasks as one swarm secret: a file on each task's tmpfs, its value
 * never in the service's spec (`docker service inspect` shows only its name). The task's shell reads
 * it into the environment and then becomes the image's own process, so the app sees the same
 * variables as on one engine.
 */
export const SECRET_ENV_FILE = "levelrail-env";
export const SECRET_ENV_PATH = `/run/secrets/${SECRET_ENV_FILE}`;
/** The label that names the release service a swarm secret belongs to. */
export const SWARM_SERVICE_LABEL = "levelrail.swarm-service";
/** The task's first process: `.` (a builtin of every POSIX shell) loads the file; `exec` hands over the image's entrypoint and command. */
export const SECRET_LOADER = ["/bin/sh", "-c", `. ${SECRET_ENV_PATH} && exec "$@"`, "levelrail-env"] as const;

/** POSIX shell single quotes: nothing inside is expanded; a quote is closed, escaped and reopened. */
const shQuote = (v: string) => `'${v.replaceAll("'", `'\\''`)}'`;

/** Pure: the secret file's text, one `export KEY='value'` line per key (sorted). */
export function secretEnvFile(env: Record<string, string>): string {
  return Object.keys(env)
    .sort()
    .map((k) => {
      if (!ENV_KEY_RE.test(k)) throw new Error(`not an environment key: ${JSON.stringify(k)}`);
      return `export ${k}=${shQuote(env[k]!)}\n`;
    })
    .join("");
}

/** The swarm secret of a release service: its name with `-env` (swarm names hold 64 characters; a longer one is hashed). */
export function releaseSecretName(serviceName: string): string {
  const name = `${serviceName}-env`;
  return name.length <= 64 ? name : `${serviceName.slice(0, 39)}-env-${createHash("sha256").update(serviceName).digest("hex").slice(0, 20)}`;
}

/** Pure: the spec with the secret mounted (readable by the image's user, whoever it is) and the loader in front of the image's process. */
export function withSecretEnv(spec: SwarmServiceSpec, secret: { id: string; name: string }, image: ImageProcess): SwarmServiceSpec {
  return {
    ...spec,
    secrets: [...spec.secrets, { secretId: secret.id, secretName: secret.name, file: SECRET_ENV_FILE, mode: 0o444 }],
    entrypoint: [...SECRET_LOADER],
    command: [...image.entrypoint, ...(spec.command ?? image.cmd)],
  };
}

/**
 * Pure: the spec with the tasks' resolver as a container's on one engine: the mesh DNS first (its
 * address on the app's overlay, in the edge namespace), then the upstream servers; a bare
 * `<service>` completed to `<service>.<app>.<zone>`, which the mesh DNS answers with the active
 * release's tasks; ndots:1 so that a bare name asks the mesh first.
 */
export function withMeshDns(spec: SwarmServiceSpec, shortName: string, appName: string, nameservers: readonly string[]): SwarmServiceSpec {
  return { ...spec, dns: { nameservers: [...nameservers], search: [`${appName}.${meshZone(shortName)}`], options: ["ndots:1"] } };
}

/** What the worker knows of a service to run it on a swarm (the application controller's `DesiredService`, narrowed). */
export interface SwarmServiceSource {
  id: string;
  name: string;
  appId: string;
  appName: string;
  environmentId: string;
  release: {
    id: string;
    restartNonce: string;
    outcome: DesiredSwarmRelease["outcome"];
    finishedAt: number | null;
    spec: Pick<ReleaseSpec, "image" | "port" | "healthPath" | "readyBudgetSeconds" | "replicas" | "placement" | "resources"> & { hooks?: ReleaseSpec["hooks"] };
  } | null;
}

/**
 * Pure: the controller's input for one pass, from the stored service, its resolved environment
 * (every tier merged; `secretKeys` the keys whose values are secrets, which never go into the
 * service's spec) and the registry login its pulls need. Null `service`: it was deleted.
 */
export function swarmInput(
  shortName: string,
  serviceId: string,
  service: SwarmServiceSource | null,
  resolved: { env: Record<string, string>; secretKeys: readonly string[] },
  registryAuth: RegistryAuth | null,
): SwarmReleaseInput {
  if (!service) return { serviceId, service: null, release: null };
  const r = service.release;
  const base = { appId: service.appId, appName: service.appName, name: service.name, port: r?.spec.port ?? 0, healthPath: r?.spec.healthPath ?? "/" };
  if (!r) return { serviceId, service: base, release: null };
  const secret = new Set(resolved.secretKeys);
  const env = Object.fromEntries(Object.entries(resolved.env).filter(([k]) => !secret.has(k)));
  const release: SwarmRelease = {
    serviceId,
    service: service.name,
    appId: service.appId,
    environmentId: service.environmentId,
    releaseId: r.id,
    restartNonce: r.restartNonce,
    image: r.spec.image,
    port: r.spec.port,
    healthPath: r.spec.healthPath,
    replicas: replicasOf(r.spec),
    placement: placementOf(r.spec),
    env,
    readyBudgetSeconds: r.spec.readyBudgetSeconds,
    resources: resourcesOf(r.spec.resources),
  };
  return {
    serviceId,
    service: base,
    release: {
      id: r.id,
      outcome: r.outcome,
      finishedAt: r.finishedAt,
      spec: releaseServiceSpec(shortName, release, registryAuth),
      image: r.spec.image,
      readyBudgetMs: r.spec.readyBudgetSeconds * 1000,
      secretEnv: Object.fromEntries(Object.entries(resolved.env).filter(([k]) => secret.has(k))),
      ...(r.spec.hooks?.preDeploy || r.spec.hooks?.postDeploy
        ? { hooks: { preDeploy: r.spec.hooks.preDeploy ?? null, postDeploy: r.spec.hooks.postDeploy ?? null, timeoutSeconds: r.spec.hooks.timeoutSeconds } }
        : {}),
    },
  };
}
