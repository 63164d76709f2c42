import type { ManagedContainer, RegistryAuth } from "@levelrail/docker";
import { UnresolvableError } from "@levelrail/spec/env";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { Labels, isBuiltImageName, noSuchImage } from "@levelrail/spec/naming";
import type { ReconcileResult } from "../../reconcile/controller";
import { NetworkTakenError, ensureAppNetwork } from "../../network/app-network";
import { NEXT, type StepContext } from "./execute";
import { runPostDeploy, runPreDeploy } from "./hooks";
import { cachedImageAccess } from "./image";
import type { Step } from "./plan";
import type { DesiredRelease, DesiredService, RegistryStore } from "./ports";
import * as st from "./status";

type ReleaseStep = Exclude<Step, { kind: "remove-all" | "stopped" | "hold-failed" | "remove-leftovers" | "drain" | "done" }>;
type Result = Promise<ReconcileResult | void>;

/** A step of a release underway, with the release, its service and how to fail it. */
interface ReleaseContext extends StepContext {
  svc: DesiredService;
  rel: DesiredRelease;
  fail(message: string, active: ManagedContainer | null): Promise<void>;
}

/** Performs a step that works on the service's release (every step but the converged ones). */
export async function releaseStep(c: StepContext, step: ReleaseStep): Result {
  const svc = c.d.service;
  const rel = svc?.release ?? null;
  if (!svc || !rel) throw new Error(`plan chose ${step.kind} without a release`);
  const { x } = c;
  const r: ReleaseContext = {
    ...c,
    svc,
    rel,
    async fail(message, active) {
      await x.status.updateRelease(rel.id, { outcome: "failed", message });
      await x.status.setStatus(svc.id, st.failed(rel.spec.image, active, message, x.now()));
      // A succeeded release's replacement container failing is no failed deploy (the live one serves on).
      if (rel.outcome !== "succeeded") await x.deploys?.recordDeploy(rel.id, "failed");
    },
  };
  switch (step.kind) {
    case "fail": {
      const logs = step.logsOf ? await x.runtime.containerLogs(step.logsOf.id, 20).catch(() => "") : "";
      if (step.remove) await c.removeAll([step.remove]);
      return void (await r.fail(logs ? `${step.message}; last output: ${logs.trim().slice(-500)}` : step.message, step.active));
    }
    case "pull":
      return pull(r, step.ref, step.active);
    case "pin-image":
      return pinImage(r, step);
    case "ensure-network":
      // The app's network (subnet from our pool); its gateway is the containers' nameserver (the mesh DNS).
      try {
        await ensureAppNetwork(x.runtime, x.shortName, svc.appId, x.networkPool);
      } catch (err) {
        if (err instanceof NetworkTakenError) return void (await r.fail(err.message, null));
        throw err;
      }
      return NEXT;
    case "begin":
      await x.status.updateRelease(rel.id, { outcome: "deploying" });
      return NEXT;
    case "create":
      return create(r, step);
    case "start":
      await c.changing(step.container.id, () => x.runtime.startContainer(step.container.id));
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
    case "switch":
      return switchTo(r, step);
    default: {
      const unknown: never = step;
      throw new Error(`no executor for step ${JSON.stringify(unknown)}`);
    }
  }
}

/** An image the engine has under the release's reference: used once its registry accepts the service's login. */
async function pinImage({ x, rel, svc, fail }: ReleaseContext, step: Extract<Step, { kind: "pin-image" }>): Result {
  const login = await registryLogin(x.registry, svc);
  if ("problem" in login) return void (await fail(login.problem, step.active));
  const owner = { shortName: x.shortName, orgId: svc.orgId, ...(x.serviceOrgs ? { orgOfService: x.serviceOrgs } : {}), ...(x.confirmations ? { confirmations: x.confirmations } : {}) };
  const access = await cachedImageAccess(x.runtime, step.ref, step.imageId, login.auth, owner);
  if (access.kind === "refused") return void (await fail(access.message, step.active));
  // Gone since the pass observed it: the next pass sees that and pulls.
  if (access.kind === "ok") await x.status.updateRelease(rel.id, { imageId: step.imageId, imageCreatedAt: await x.runtime.imageCreated(step.imageId) });
  return NEXT;
}

/** The pre-deploy hook (after the databases joined the app network), the old containers stopped first under `recreate`, then the new container. */
async function create(r: ReleaseContext, step: Extract<Step, { kind: "create" }>): Result {
  const { x, svc, rel } = r;
  let active = step.active;
  // Its databases answer on the app network before the hook (a migration) or the container needs them.
  await x.databases?.attach(svc.id);
  if (step.preDeploy) {
    const argv = JSON.stringify(step.preDeploy.run.argv);
    await x.status.setStatus(svc.id, st.deploying(rel.spec.image, "pre-deploy", active?.name ?? null, `running the pre-deploy hook ${argv}`));
    const pre = step.preDeploy;
    // The hook container is made and removed within: the index forgets it (or sees it left behind).
    const hook = await r.changing(pre.options.name, () => runPreDeploy(x.runtime, x.hooks, pre.run, pre.options));
    if (!hook.ok) return void (await r.fail(hook.message, active));
  }
  if (step.stopFirst.length > 0) {
    for (const c of step.stopFirst) await r.changing(c.id, () => x.runtime.stopContainer(c.id, 10));
    await r.removeAll(step.stopFirst);
    active = null; // gone: nothing serves until the new one is ready, and a failure must not claim otherwise
  }
  if ((await r.changing(step.options.name, () => x.runtime.createContainer(step.options))) === null) {
    // The name is taken: ours (a crash after create, or a pass racing) is adopted next pass; a
    // container that is not this service's is never adopted, and nothing else can free its name.
    const taken = await x.runtime.inspectContainer(step.options.name);
    if (taken && !ownedBy(taken, x.shortName, svc.id)) {
      return void (await r.fail(`container name ${step.options.name} is taken by a container that is not this service's; remove it and deploy again`, active));
    }
  }
  await x.status.setStatus(svc.id, st.deploying(rel.spec.image, "starting", active?.name ?? null, `starting ${step.options.name}`));
  return NEXT;
}

/** Ready: the post-deploy hook, then the switch. The mesh name answers the new container; old ones drain, then go (next passes). */
async function switchTo(r: ReleaseContext, step: Extract<Step, { kind: "switch" }>): Result {
  const { x, svc, rel } = r;
  const { container } = step;
  if (step.postDeploy) {
    const argv = JSON.stringify(step.postDeploy.argv);
    await x.status.setStatus(svc.id, st.deploying(rel.spec.image, "post-deploy", step.active?.name ?? null, `running the post-deploy hook ${argv} in ${container.name}`));
    const hook = await runPostDeploy(x.runtime, x.hooks, step.postDeploy, container);
    if (!hook.ok) {
      await r.removeAll([container]);
      return void (await r.fail(hook.message, step.active));
    }
  }
  await r.changing(container.id, () => x.runtime.setRestartPolicy(container.id, "unless-stopped"));
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

/** Whether a container carries this installation's and this service's labels (checked after inspecting it, not trusted from its name). */
function ownedBy(c: ManagedContainer, shortName: string, serviceId: string): boolean {
  return c.labels[Labels.managed] === "true" && c.labels[Labels.instance] === shortName && c.labels[Labels.service] === serviceId;
}

/** Resolve the release's image once, following the pull policy, with the declared login. */
async function pull({ x, svc, rel, fail }: ReleaseContext, ref: string, active: ManagedContainer | null): Result {
  // A built image is never pulled: no registry has it, and its name must not reach one (the old
  // names read as Docker Hub's). One that is not on this engine does not exist here.
  if (isBuiltImageName(x.shortName, ref)) return void (await fail(noSuchImage(ref), active));
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
