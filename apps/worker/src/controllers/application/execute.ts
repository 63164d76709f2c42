import type { ManagedContainer, RegistryAuth, Runtime } from "@levelrail/docker";
import { UnresolvableError } from "@levelrail/spec/env";
import type { MeshPort } from "@levelrail/spec/dataplane";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { Labels } from "@levelrail/spec/naming";
import type { ReconcileResult } from "../../reconcile/controller";
import { NetworkTakenError, ensureAppNetwork } from "../../network/app-network";
import type { SubnetPool } from "../../network/pool";
import { type HookRecorder, runPostDeploy, runPreDeploy } from "./hooks";
import { cachedImageAccess } from "./image";
import type { Desired, Step } from "./plan";
import type { ContainerIndex, DatabaseAttacher, DeployRecorder, DesiredRelease, DesiredService, PullRecorder, RegistryStore, StatusWriter } from "./ports";
import type { ProberManager } from "./prober";
import * as st from "./status";

export interface ExecuteDeps {
  shortName: string;
  runtime: Runtime;
  /** Told of every container this executor changes, before the pass ends. */
  containers: ContainerIndex;
  status: StatusWriter;
  registry: RegistryStore | undefined;
  hooks: HookRecorder | undefined;
  networkPool: SubnetPool;
  mesh: MeshPort;
  prober: Pick<ProberManager, "register" | "forget">;
  deploys: DeployRecorder | undefined;
  pulls: PullRecorder | undefined;
  /** Joins the managed databases a service attaches to its app's network before its containers start; absent: none. */
  databases?: DatabaseAttacher | undefined;
  /** Used only while a started container has no address yet (it gets one as it starts). */
  probeIntervalMs: number;
  drainMs: number;
  now: () => number;
}

/** Go on at once: the step changed something the next pass must observe. */
const NEXT: ReconcileResult = { requeueAfterMs: 0 };

/**
 * Performs one planned step and writes the status once. Long steps (a pull, a hook) also announce
 * themselves first, so the operator sees what the worker is waiting on.
 */
export async function execute(x: ExecuteDeps, d: Desired, step: Step): Promise<ReconcileResult | void> {
  const { runtime, containers } = x;
  const removeAll = async (cs: ManagedContainer[]) => {
    for (const c of cs) {
      await runtime.removeContainer(c.id);
      containers.forget(c.id);
      x.prober.forget(c.id);
    }
  };
  /**
   * Changes a container, then has the index inspect it again, whether or not the change went through
   * (a failed change's own error is the one thrown; the next relist looks again at what it left).
   */
  const changing = async <T>(idOrName: string, change: () => Promise<T>): Promise<T> => {
    let result: T;
    try {
      result = await change();
    } catch (err) {
      await containers.refresh(idOrName).catch(() => {});
      throw err;
    }
    await containers.refresh(idOrName);
    return result;
  };
  const svc = d.service;
  const rel = svc?.release ?? null;

  switch (step.kind) {
    case "remove-all":
      await removeAll(step.remove);
      await x.mesh.setActive(d.serviceId, null);
      return;
    case "stopped":
      await removeAll(step.remove);
      await x.mesh.setActive(d.serviceId, null);
      return void (await x.status.setStatus(d.serviceId, step.status));
    case "hold-failed":
      await x.mesh.setActive(d.serviceId, step.publish);
      return void (await x.status.setStatus(d.serviceId, step.status));
    case "remove-leftovers":
      await removeAll(step.remove);
      return NEXT;
    case "drain":
      await x.mesh.setActive(d.serviceId, step.publish);
      await x.status.setStatus(d.serviceId, step.status);
      return { requeueAfterMs: step.requeueAfterMs };
    case "done":
      await x.mesh.setActive(d.serviceId, step.publish);
      await removeAll(step.remove);
      await x.status.setStatus(d.serviceId, step.status);
      return step.requeueAfterMs === null ? undefined : { requeueAfterMs: step.requeueAfterMs };
  }

  // Every other step works on a release.
  if (!svc || !rel) throw new Error(`plan chose ${step.kind} without a release`);
  const fail = async (message: string, active: ManagedContainer | null) => {
    await x.status.updateRelease(rel.id, { outcome: "failed", message });
    await x.status.setStatus(svc.id, st.failed(rel.spec.image, active, message, x.now()));
    // A succeeded release's replacement container failing is no failed deploy (the live one serves on).
    if (rel.outcome !== "succeeded") await x.deploys?.recordDeploy(rel.id, "failed");
  };

  switch (step.kind) {
    case "fail": {
      const logs = step.logsOf ? await runtime.containerLogs(step.logsOf.id, 20).catch(() => "") : "";
      if (step.remove) await removeAll([step.remove]);
      return void (await fail(logs ? `${step.message}; last output: ${logs.trim().slice(-500)}` : step.message, step.active));
    }
    case "pull":
      return pull(x, svc, rel, step.ref, step.active, fail);
    case "pin-image": {
      const login = await registryLogin(x.registry, svc);
      if ("problem" in login) return void (await fail(login.problem, step.active));
      const access = await cachedImageAccess(runtime, step.ref, step.imageId, login.auth);
      if (access.kind === "refused") return void (await fail(access.message, step.active));
      // Gone since the pass observed it: the next pass sees that and pulls.
      if (access.kind === "ok") await x.status.updateRelease(rel.id, { imageId: step.imageId, imageCreatedAt: await runtime.imageCreated(step.imageId) });
      return NEXT;
    }
    case "ensure-network":
      // The app's network (subnet from our pool); its gateway is the containers' nameserver (the mesh DNS).
      try {
        await ensureAppNetwork(runtime, x.shortName, svc.appId, x.networkPool);
      } catch (err) {
        if (err instanceof NetworkTakenError) return void (await fail(err.message, null));
        throw err;
      }
      return NEXT;
    case "begin":
      await x.status.updateRelease(rel.id, { outcome: "deploying" });
      return NEXT;
    case "create": {
      let active = step.active;
      // Its databases answer on the app network before the hook (a migration) or the container needs them.
      await x.databases?.attach(svc.id);
      if (step.preDeploy) {
        const argv = JSON.stringify(step.preDeploy.run.argv);
        await x.status.setStatus(svc.id, st.deploying(rel.spec.image, "pre-deploy", active?.name ?? null, `running the pre-deploy hook ${argv}`));
        const pre = step.preDeploy;
        // The hook container is made and removed within: the index forgets it (or sees it left behind).
        const hook = await changing(pre.options.name, () => runPreDeploy(runtime, x.hooks, pre.run, pre.options));
        if (!hook.ok) return void (await fail(hook.message, active));
      }
      if (step.stopFirst.length > 0) {
        for (const c of step.stopFirst) await changing(c.id, () => runtime.stopContainer(c.id, 10));
        await removeAll(step.stopFirst);
        active = null; // gone: nothing serves until the new one is ready, and a failure must not claim otherwise
      }
      if ((await changing(step.options.name, () => runtime.createContainer(step.options))) === null) {
        // The name is taken: ours (a crash after create, or a pass racing) is adopted next pass; a
        // container that is not this service's is never adopted, and nothing else can free its name.
        const taken = await runtime.inspectContainer(step.options.name);
        if (taken && !ownedBy(taken, x.shortName, svc.id)) {
          return void (await fail(`container name ${step.options.name} is taken by a container that is not this service's; remove it and deploy again`, active));
        }
      }
      await x.status.setStatus(svc.id, st.deploying(rel.spec.image, "starting", active?.name ?? null, `starting ${step.options.name}`));
      return NEXT;
    }
    case "start":
      await changing(step.container.id, () => runtime.startContainer(step.container.id));
      await x.status.setStatus(svc.id, step.status);
      return NEXT;
    case "await-readiness": {
      await x.status.setStatus(svc.id, step.status);
      // Rare: an address is assigned as the container starts; look again shortly.
      if (step.url === null) return { requeueAfterMs: x.probeIntervalMs };
      x.prober.register({ key: formatKey(serviceKey(svc.id)), containerId: step.container.id, url: step.url, since: step.since, budgetMs: step.budgetMs });
      // The prober wakes the key when ready or out of budget; this is only a safety net.
      return { requeueAfterMs: Math.max(0, step.since + step.budgetMs - x.now()) + 1000 };
    }
    case "switch": {
      const { container } = step;
      if (step.postDeploy) {
        const argv = JSON.stringify(step.postDeploy.argv);
        await x.status.setStatus(svc.id, st.deploying(rel.spec.image, "post-deploy", step.active?.name ?? null, `running the post-deploy hook ${argv} in ${container.name}`));
        const hook = await runPostDeploy(runtime, x.hooks, step.postDeploy, container);
        if (!hook.ok) {
          await removeAll([container]);
          return void (await fail(hook.message, step.active));
        }
      }
      // Ready: switch. The mesh name now answers the new container; old ones drain, then go (next passes).
      await changing(container.id, () => runtime.setRestartPolicy(container.id, "unless-stopped"));
      await x.mesh.setActive(svc.id, { appId: svc.appId, app: svc.appName, service: svc.name, container: container.name, port: rel.spec.port });
      await x.status.updateRelease(rel.id, { outcome: "succeeded", container: container.name, message: "" });
      // A replacement's ready time anchors the old container's drain (the release's own time is the deploy's).
      if (!step.replacement) x.prober.forget(container.id);
      if (step.cutover) await x.deploys?.recordDeploy(rel.id, "succeeded");
      if (step.others > 0 && x.drainMs > 0) {
        await x.status.setStatus(svc.id, st.deploying(rel.spec.image, "cutover", container.name, `${container.name} is active; draining ${step.others} old container(s)`));
        return { requeueAfterMs: x.drainMs };
      }
      await x.status.setStatus(svc.id, { phase: "running", step: null, image: rel.spec.image, activeContainer: container.name, message: "", ...st.NO_RESTARTS });
      return NEXT; // the next pass removes the old ones at once (no drain configured)
    }
    default: {
      const unknown: never = step;
      throw new Error(`no executor for step ${JSON.stringify(unknown)}`);
    }
  }
}

/** Whether a container carries this installation's and this service's labels (checked after inspecting it, not trusted from its name). */
function ownedBy(c: ManagedContainer, shortName: string, serviceId: string): boolean {
  return c.labels[Labels.managed] === "true" && c.labels[Labels.instance] === shortName && c.labels[Labels.service] === serviceId;
}

/** Resolve the release's image once, following the pull policy, with the declared login. */
async function pull(
  x: ExecuteDeps,
  svc: DesiredService,
  rel: DesiredRelease,
  ref: string,
  active: ManagedContainer | null,
  fail: (message: string, active: ManagedContainer | null) => Promise<void>,
): Promise<ReconcileResult | void> {
  const login = await registryLogin(x.registry, svc);
  if ("problem" in login) return void (await fail(login.problem, active));
  let last = 0;
  const report = (message: string) => x.status.setStatus(svc.id, st.deploying(ref, "pulling", active?.name ?? null, message));
  await report(`pulling ${ref}`);
  // What the reference named before: an image already here under it is not ours to collect later.
  const before = await x.runtime.imageId(ref);
  try {
    await x.runtime.pullImage(ref, login.auth, (p) => {
      const now = x.now();
      if (now - last < 1000) return;
      last = now;
      const pct = p.total ? ` ${Math.round(((p.current ?? 0) / p.total) * 100)}%` : "";
      void report(`pulling ${ref}: ${p.status}${p.id ? ` ${p.id}` : ""}${pct}`).catch(() => {});
    });
  } catch (err) {
    return void (await fail(`image ${ref} could not be pulled: ${err instanceof Error ? err.message : String(err)}`, active));
  }
  const id = await x.runtime.imageId(ref);
  if (id === null) return void (await fail(`image ${ref} is not on the engine after pulling`, active));
  if (id !== before) await x.pulls?.recordPull(id, ref);
  // When the image was built (its OCI created label, else the engine's time): lead time starts there.
  await x.status.updateRelease(rel.id, { imageId: id, imageCreatedAt: await x.runtime.imageCreated(id) });
  return NEXT;
}

/** The login a pull uses: none, the declared credential, or why it cannot be had. */
async function registryLogin(registry: RegistryStore | undefined, svc: DesiredService): Promise<{ auth: RegistryAuth | null } | { problem: string }> {
  const id = svc.registryCredentialId;
  if (id === null) return { auth: null };
  if (!registry) return { problem: `registry credential ${id} is declared but the worker has no registry store` };
  try {
    const auth = await registry.registryAuth(svc.orgId, id);
    return auth ? { auth } : { problem: `registry credential ${id} does not exist` };
  } catch (err) {
    if (err instanceof UnresolvableError) return { problem: err.message };
    throw err;
  }
}
