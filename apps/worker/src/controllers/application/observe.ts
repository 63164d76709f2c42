import type { ManagedContainer, Runtime } from "@levelrail/docker";
import { type EnvStores, UnresolvableError, resolveEnv, toEnvMap } from "@levelrail/spec/env";
import { type Redactor, noRedaction, redactor } from "@levelrail/spec/redact";
import { Labels, isPreDeployContainer, networkName } from "@levelrail/spec/naming";
import { isAppNetwork } from "../../network/app-network";
import { type Desired, type EnvObservation, type Observed, isLive, releaseContainerName } from "./plan";
import type { ContainerIndex, DesiredService, RegistryStore, ServiceStore } from "./ports";
import type { ProberManager } from "./prober";

export interface ObserveDeps {
  shortName: string;
  runtime: Pick<Runtime, "imageId" | "inspectNetwork">;
  containers: Pick<ContainerIndex, "byService">;
  store: ServiceStore;
  envStores: EnvStores;
  /** Registry logins: a declared one's password is redacted like a secret. */
  registry: RegistryStore | undefined;
  prober: Pick<ProberManager, "result">;
  drainMs: number;
  upstreamDns: string[];
  defaultHookTimeoutSeconds: number;
  now: () => number;
}

/**
 * Reads what one pass needs, fresh: the desired service and release, the service's containers (from
 * the container index, which the executor keeps current), and, only while a container may still have to be made, its environment, image and network.
 * `redact` hides the service's secret values (and registry password) from whatever the pass records or throws.
 */
export async function observe(o: ObserveDeps, serviceId: string): Promise<{ desired: Desired; observed: Observed; redact: Redactor }> {
  const service = await o.store.getDesiredService(serviceId);
  const all = o.containers.byService(serviceId);
  // Containers an earlier version labelled with the service's name (before keys by id) are still
  // this service's: adopted (the name of a running release's container is unchanged), never removed
  // as strangers. The index holds them under that label value.
  if (service) for (const c of o.containers.byService(service.name)) if (c.labels[Labels.app] === service.appId && !all.some((x) => x.id === c.id)) all.push(c);
  const desired: Desired = {
    serviceId,
    service,
    shortName: o.shortName,
    drainMs: o.drainMs,
    upstreamDns: o.upstreamDns,
    defaultHookTimeoutSeconds: o.defaultHookTimeoutSeconds,
  };
  const observed: Observed = {
    now: o.now(),
    // Hook containers of this service (pre-deploy one-offs) are not the service itself. An earlier
    // version's service containers have no role label of their own: they are the service's, active
    // until their replacement under today's name has taken the traffic over.
    containers: all.filter((c) => !isPreDeployContainer(c)),
    hookContainers: all.filter(isPreDeployContainer),
    env: null,
    localImageId: null,
    network: null,
    probes: {},
  };
  for (const c of observed.containers) {
    const r = o.prober.result(c.id);
    if (r) observed.probes[c.id] = r;
  }
  const rel = service?.release;
  if (!service || !rel || rel.outcome === "failed") return { desired, observed, redact: noRedaction };
  const target = rel.imageId === null ? null : releaseContainerName(o.shortName, service, rel.imageId, rel.restartNonce);
  if (rel.outcome === "succeeded" && observed.containers.some((c) => c.name === target && isLive(c))) return { desired, observed, redact: noRedaction };

  const { env, secrets } = await environment(o.envStores, service.envTarget, rel.spec.env);
  observed.env = env;
  const redact = redactor([...secrets, ...(await registryPassword(o.registry, service))]);
  if (!observed.env.ok) return { desired, observed, redact };
  if (rel.imageId === null) observed.localImageId = await o.runtime.imageId(rel.spec.image);
  else if (!observed.containers.some((c) => c.name === target)) observed.pinnedImageGone = (await o.runtime.imageId(rel.imageId)) === null;
  const net = await o.runtime.inspectNetwork(networkName(o.shortName, service.appId));
  // Only the app's own network (by its labels): one that merely has its name is never joined.
  observed.network = net?.gateway && isAppNetwork(net, o.shortName, service.appId) ? { name: net.name, gateway: net.gateway } : null;
  return { desired, observed, redact };
}

/**
 * The service's secret values (and registry password) as a redactor, resolved now: for what a pass
 * keeps when it did not need the environment itself (a crash-looping container's last lines). With
 * a container, its own values under its secret keys too (its label's, as deployed, and today's):
 * it may have been created before a secret was rotated. Null when its environment no longer
 * resolves: then not every secret is known, and nothing may be kept.
 */
export async function serviceRedactor(
  o: Pick<ObserveDeps, "envStores" | "registry"> & { runtime: Pick<Runtime, "containerEnv"> },
  svc: DesiredService,
  container?: ManagedContainer,
): Promise<Redactor | null> {
  const { env, secrets } = await environment(o.envStores, svc.envTarget, svc.release?.spec.env ?? {});
  if (!env.ok) return null;
  const own: string[] = [];
  if (container) {
    const keys = new Set([...(env.secretKeys ?? []), ...(container.labels[Labels.secretKeys] ?? "").split(",").filter(Boolean)]);
    const values = await o.runtime.containerEnv(container.id).catch(() => null);
    if (values === null) return null; // its own values unknown: nothing may be kept
    for (const k of keys) {
      const v = values[k];
      if (v !== undefined) own.push(v);
    }
  }
  return redactor([...secrets, ...own, ...(await registryPassword(o.registry, svc))]);
}

/** The resolved environment, and the values that must never be shown (secrets, credentials). */
export async function environment(stores: EnvStores, target: Parameters<typeof resolveEnv>[0], env: Record<string, string>): Promise<{ env: EnvObservation; secrets: string[] }> {
  try {
    const entries = await resolveEnv({ ...target, env }, stores);
    const sensitive = entries.filter((e) => e.sensitive);
    return { env: { ok: true, env: toEnvMap(entries), secretKeys: sensitive.map((e) => e.key) }, secrets: sensitive.map((e) => e.value) };
  } catch (err) {
    if (err instanceof UnresolvableError) return { env: { ok: false, problem: err.message }, secrets: [] };
    throw err;
  }
}

/** The declared registry login's password, to redact; a login that cannot be had is the pull's to report. */
export async function registryPassword(registry: RegistryStore | undefined, svc: DesiredService): Promise<string[]> {
  if (svc.registryCredentialId === null || !registry) return [];
  const auth = await registry.registryAuth(svc.orgId, svc.registryCredentialId).catch(() => null);
  return auth ? [auth.password] : [];
}
