import type { ManagedContainer, RegistryAuth, Runtime } from "@levelrail/docker";
import { type EnvStores, UnresolvableError, resolveEnv, toEnvMap } from "@levelrail/spec/env";
import type { MeshPort } from "@levelrail/spec/dataplane";
import { Labels, serviceFilter } from "@levelrail/spec/naming";
import type { DeployStep } from "@levelrail/spec/service";
import type { Controller, ReconcileResult } from "../../reconcile/controller";
import { containerOptions, probeUrl } from "./desired";
import { type HookRecorder, preDeployContainer, runPostDeploy, runPreDeploy } from "./hooks";
import { pullPolicy } from "./image";
import { ensureAppNetwork } from "../../network/app-network";
import type { SubnetPool } from "../../network/pool";
import type { DeployRecorder, DesiredRelease, DesiredService, Prober, RegistryStore, ServiceStore, StatusWriter } from "./ports";

export interface ApplicationControllerOptions {
  shortName: string;
  runtime: Runtime;
  store: ServiceStore;
  status: StatusWriter;
  prober: Prober;
  /** How often a starting container is probed. */
  probeIntervalMs: number;
  /** Env tiers: absent organization/project/environment stores are skipped; absent secret/storage/database stores fail a service that declares one. */
  envStores: EnvStores;
  /** Registry logins; a service that declares one fails when this is absent. */
  registry: RegistryStore | undefined;
  /** Where hook runs are kept; without one, hooks still run and gate the deploy. */
  hooks: HookRecorder | undefined;
  /** Timeout for a hook whose service sets none. */
  defaultHookTimeoutSeconds: number;
  /** Where app networks get their subnets. */
  networkPool: SubnetPool;
  /** The mesh DNS: told which container is active; serves each app network's gateway. */
  mesh: MeshPort;
  /**
   * Nameservers after the mesh DNS, for every name outside its zone (it refuses them, and Docker's
   * embedded DNS asks the next): the host's. Absent: containers resolve mesh names only.
   */
  upstreamDns?: string[];
  /** How long an old container keeps running after the switch, for requests in flight. */
  drainMs: number;
  /** Deploy metrics; without one, deploys work and are not measured. */
  deploys: DeployRecorder | undefined;
}


export { serviceKey } from "@levelrail/db/notify";

/**
 * Converges one service (key `service:<name>`) to its current release:
 * one running, ready container named from the release's image and nonce.
 */
export function applicationController(o: ApplicationControllerOptions): Controller {
  const { runtime } = o;

  const removeAll = async (containers: ManagedContainer[]) => {
    for (const c of containers) await runtime.removeContainer(c.id);
  };

  /** The login a pull uses: none, the declared credential, or why it cannot be had. */
  const registryLogin = async (svc: DesiredService): Promise<{ auth: RegistryAuth | null } | { problem: string }> => {
    const id = svc.registryCredentialId;
    if (id === null) return { auth: null };
    if (!o.registry) return { problem: `registry credential ${id} is declared but the worker has no registry store` };
    try {
      const auth = await o.registry.registryAuth(svc.orgId, id);
      return auth ? { auth } : { problem: `registry credential ${id} does not exist` };
    } catch (err) {
      if (err instanceof UnresolvableError) return { problem: err.message };
      throw err;
    }
  };

  /** Resolve the release's image once, following the pull policy. Returns null when the release failed. */
  const resolveImage = async (svc: DesiredService, rel: DesiredRelease, active: string | null): Promise<string | null> => {
    const ref = rel.spec.image;
    const have = await runtime.imageId(ref);
    if (have === null || pullPolicy(ref) === "always") {
      const login = await registryLogin(svc);
      if ("problem" in login) {
        await fail(svc, rel, active, login.problem);
        return null;
      }
      const auth = login.auth;
      let last = 0;
      const report = async (message: string) => {
        await progress(svc, rel, "pulling", active, message);
      };
      await report(`pulling ${ref}`);
      try {
        await runtime.pullImage(ref, auth, (p) => {
          const now = Date.now();
          if (now - last < 1000) return;
          last = now;
          const pct = p.total ? ` ${Math.round(((p.current ?? 0) / p.total) * 100)}%` : "";
          void report(`pulling ${ref}: ${p.status}${p.id ? ` ${p.id}` : ""}${pct}`).catch(() => {});
        });
      } catch (err) {
        await fail(svc, rel, active, `image ${ref} could not be pulled: ${errorText(err)}`);
        return null;
      }
    }
    const id = await runtime.imageId(ref);
    if (id === null) {
      await fail(svc, rel, active, `image ${ref} is not on the engine after pulling`);
      return null;
    }
    await o.status.updateRelease(rel.id, { imageId: id });
    return id;
  };

  const fail = async (svc: DesiredService, rel: DesiredRelease, active: string | null, message: string) => {
    await o.status.setStatus(svc.id, {
      phase: "failed",
      step: null,
      image: rel.spec.image,
      activeContainer: active,
      message: active ? `${message}; ${active} keeps serving` : message,
    });
    await o.status.updateRelease(rel.id, { outcome: "failed", message });
    await o.deploys?.recordDeploy(rel.id, "failed");
  };

  /** Writes the observed status of a deploy in progress. */
  const progress = (svc: DesiredService, rel: DesiredRelease, step: DeployStep, active: string | null, message: string) =>
    o.status.setStatus(svc.id, { phase: "deploying", step, image: rel.spec.image, activeContainer: active, message });

  const hookRun = (svc: DesiredService, rel: DesiredRelease, phase: "pre" | "post", argv: string[]) => ({
    serviceId: svc.id,
    releaseId: rel.id,
    phase,
    argv,
    timeoutSeconds: rel.spec.hooks.timeoutSeconds ?? o.defaultHookTimeoutSeconds,
  });

  return {
    name: "application",
    async reconcile(key): Promise<ReconcileResult | void> {
      const name = key.slice("service:".length);
      const svc = await o.store.getDesiredService(name);
      const all = await runtime.listContainers(serviceFilter(o.shortName, name));
      // Hook containers of this service (pre-deploy one-offs) are not the service itself.
      const hookContainers = all.filter((c) => c.labels[Labels.role] !== undefined);
      const containers = all.filter((c) => c.labels[Labels.role] === undefined);

      if (!svc) return void (await removeAll(all));
      const rel = svc.release;
      if (!rel) {
        await removeAll(all);
        await o.mesh.setActive(svc.id, null);
        await o.status.setStatus(svc.id, { phase: "stopped", step: null, image: null, activeContainer: null, message: "not deployed yet" });
        return;
      }

      const servingContainer = containers.find((c) => c.state === "running");
      const serving = servingContainer?.name ?? null;
      const publish = (container: string | null) =>
        o.mesh.setActive(svc.id, container ? { appId: svc.appId, app: svc.appName, service: svc.name, container, port: rel.spec.port } : null);
      // A failed release is final until the desired state changes: no churn. The container that
      // keeps serving stays the mesh name's answer (also after a worker restart).
      if (rel.outcome === "failed") {
        if (servingContainer) await publish(servingContainer.name);
        return;
      }

      // Every declared value must resolve before anything is pulled or started.
      let env: Record<string, string>;
      try {
        env = toEnvMap(await resolveEnv({ ...svc.envTarget, env: rel.spec.env }, o.envStores));
      } catch (err) {
        if (!(err instanceof UnresolvableError)) throw err;
        await fail(svc, rel, serving, err.message);
        return;
      }

      const imageId = rel.imageId ?? (await resolveImage(svc, rel, serving));
      if (imageId === null) return;

      // The app's network (subnet from our pool) and the mesh DNS on its gateway, which containers use as nameserver.
      const net = await ensureAppNetwork(runtime, o.shortName, svc.appId, o.networkPool);
      const network = net.name;

      const plan = containerOptions({
        shortName: o.shortName,
        service: svc.name,
        appId: svc.appId,
        releaseId: rel.id,
        imageId,
        restartNonce: rel.restartNonce,
        spec: rel.spec,
        env,
        dns: [net.gateway, ...(o.upstreamDns ?? [])],
      });
      const preDeploy = rel.spec.hooks.preDeploy ? preDeployContainer(plan, rel.spec.hooks.preDeploy) : null;
      const target = containers.find((c) => c.name === plan.name);
      const others = containers.filter((c) => c.name !== plan.name);
      // Only this release's hook container, before its service container exists, is adopted (a crash mid-hook);
      // any other (an older release's, even under the same name) is a leftover.
      const adoptable = (c: ManagedContainer) => !target && c.name === preDeploy?.name && c.labels[Labels.release] === rel.id;
      await removeAll(hookContainers.filter((c) => !adoptable(c)));

      if (rel.outcome === "succeeded" && target?.state === "running") {
        await publish(target.name);
        // Old containers drain for a while after the switch, then go.
        const drainLeft = (rel.finishedAt ?? 0) + o.drainMs - Date.now();
        if (others.length > 0 && drainLeft > 0) {
          await progress(svc, rel, "cutover", target.name, `${target.name} is active; draining ${others.length} old container(s) for ${Math.ceil(drainLeft / 100) / 10}s`);
          return { requeueAfterMs: drainLeft };
        }
        await removeAll(others);
        await o.status.setStatus(svc.id, { phase: "running", step: null, image: rel.spec.image, activeContainer: target.name, message: "" });
        return;
      }

      let othersServing = others.find((c) => c.state === "running")?.name ?? null;
      if (rel.outcome === "pending") await o.status.updateRelease(rel.id, { outcome: "deploying" });

      let current = target;
      if (!current) {
        if (preDeploy && rel.spec.hooks.preDeploy) {
          await progress(svc, rel, "pre-deploy", othersServing, `running the pre-deploy hook ${JSON.stringify(rel.spec.hooks.preDeploy)}`);
          const hook = await runPreDeploy(runtime, o.hooks, hookRun(svc, rel, "pre", rel.spec.hooks.preDeploy), preDeploy);
          if (!hook.ok) return void (await fail(svc, rel, othersServing, hook.message));
        }
        if (rel.spec.strategy === "recreate" && others.length > 0) {
          await progress(svc, rel, "starting", null, "stopping the old container (recreate)");
          for (const c of others) await runtime.stopContainer(c.id, 10);
          await removeAll(others);
          othersServing = null; // gone: nothing serves until the new one is ready, and a failure must not claim otherwise
        }
        await progress(svc, rel, "starting", othersServing, `starting ${plan.name}`);
        await runtime.createContainer(plan); // null: the name exists already, adopted below
        current = (await runtime.inspectContainer(plan.name)) ?? undefined;
        if (!current) throw new Error(`container ${plan.name} vanished right after it was created`);
      }
      if (current.state === "created") {
        await runtime.startContainer(current.id);
        current = (await runtime.inspectContainer(current.id)) ?? current;
      }
      if (current.state === "exited" || current.state === "dead" || current.restartCount > 0) {
        const logs = await runtime.containerLogs(current.id, 20).catch(() => "");
        await runtime.removeContainer(current.id);
        await fail(svc, rel, othersServing, `${plan.name} exited with code ${current.exitCode ?? "?"} before it was ready${logs ? `; last output: ${logs.trim().slice(-500)}` : ""}`);
        return;
      }

      const budgetMs = rel.spec.readyBudgetSeconds * 1000;
      const address = current.addresses[network];
      const result = address
        ? await o.prober.probe(probeUrl(address, rel.spec), Math.min(2000, budgetMs))
        : { ready: false, detail: "no address on the app network yet" };
      if (!result.ready) {
        const elapsed = Date.now() - current.createdAt;
        if (elapsed >= budgetMs) {
          await runtime.removeContainer(current.id);
          await fail(svc, rel, othersServing, `${plan.name} was not ready within ${rel.spec.readyBudgetSeconds}s (GET ${rel.spec.healthPath} on port ${rel.spec.port}: ${result.detail})`);
          return;
        }
        await progress(svc, rel, "probing", othersServing, `waiting for ${plan.name} to be ready (GET ${rel.spec.healthPath}: ${result.detail}, ${Math.round(elapsed / 1000)}s of ${rel.spec.readyBudgetSeconds}s)`);
        return { requeueAfterMs: o.probeIntervalMs };
      }

      // A real cutover: this release made the container (a no-op Deploy adopts the running one and runs no hook).
      const cutover = current.labels[Labels.release] === rel.id;
      if (cutover && rel.spec.hooks.postDeploy) {
        await progress(svc, rel, "post-deploy", othersServing, `running the post-deploy hook ${JSON.stringify(rel.spec.hooks.postDeploy)} in ${plan.name}`);
        const hook = await runPostDeploy(runtime, o.hooks, hookRun(svc, rel, "post", rel.spec.hooks.postDeploy), current);
        if (!hook.ok) {
          await runtime.removeContainer(current.id);
          return void (await fail(svc, rel, othersServing, hook.message));
        }
      }

      // Ready: switch. The mesh name now answers the new container; old ones drain, then go (next pass).
      await runtime.setRestartPolicy(current.id, "unless-stopped");
      await publish(plan.name);
      await o.status.updateRelease(rel.id, { outcome: "succeeded", container: plan.name, message: "" });
      if (cutover) await o.deploys?.recordDeploy(rel.id, "succeeded");
      if (others.length > 0 && o.drainMs > 0) {
        await progress(svc, rel, "cutover", plan.name, `${plan.name} is active; draining ${others.length} old container(s)`);
        return { requeueAfterMs: o.drainMs };
      }
      await removeAll(others); // no drain configured: they go at once
      await o.status.setStatus(svc.id, { phase: "running", step: null, image: rel.spec.image, activeContainer: plan.name, message: "" });
    },
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
