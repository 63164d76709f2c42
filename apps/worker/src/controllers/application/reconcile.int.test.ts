import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "@levelrail/services/app/app";
import { deleteService, createService } from "@levelrail/services/service/write";
import { deployService, listReleases, restartService } from "@levelrail/services/release/deploy";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { Labels, Roles, networkName } from "@levelrail/spec/naming";
import { ensureTestImage } from "@levelrail/testkit/images";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";
import { ContainerInformer } from "../../containers/informer";
import { applicationController } from "./reconcile";
import { httpProber } from "./ports";
import { ProberManager } from "./prober";
import { pgServiceStore } from "../../store";
import { APP_SUBNET_BITS, DEFAULT_NETWORK_POOL } from "../../network/pool";
import { pgEnvStores } from "@levelrail/services/env/sources";

let s: Awaited<ReturnType<typeof setupSuite>>;
let appId: string;

beforeAll(async () => {
  s = await setupSuite("appctl");
  const app = await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  appId = app.id;
  await s.startWorker();
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

const svc = (name: string, extra: Record<string, unknown> = {}) =>
  createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", ...extra } });

describe("application controller on the real engine", () => {
  it("first deploy runs one ready container on the app network", async () => {
    const name = `first-${s.shortName}`;
    await svc(name, { env: { GREETING: "hello world", EMPTY: "" } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const st = await s.waitPhase(name, ["running", "failed"]);
    expect(st.phase).toBe("running");
    const cs = await s.containers(name);
    expect(cs).toHaveLength(1);
    expect(cs[0]!.name).toBe(st.activeContainer);
    expect(cs[0]!.labels["levelrail.managed"]).toBe("true");
    expect(cs[0]!.labels["levelrail.service"]).toBe(await s.serviceId(name));
    expect(cs[0]!.labels["levelrail.app"]).toBe(appId);
    expect(await s.body(cs[0]!.id, networkName(s.shortName, appId))).toBe("v1\n");
    const env = (await s.runtime.docker.getContainer(cs[0]!.id).inspect()).Config.Env;
    expect(env).toEqual(expect.arrayContaining(["GREETING=hello world", "EMPTY="]));
    const [rel] = await listReleases({ ctx: s.ctx, envId: s.ctx.envId, name });
    expect(rel?.outcome).toBe("succeeded");
    expect(rel?.imageId).toMatch(/^sha256:/);
    expect(rel?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("an image change keeps the old container serving until the new one is ready", async () => {
    const name = `bg-${s.shortName}`;
    await svc(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const first = await s.waitPhase(name, ["running"]);
    const network = networkName(s.shortName, appId);

    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image: IMAGES.v2.tag } });
    // Sample continuously during the cutover: something running must answer every time.
    const bodies = new Set<string>();
    let gaps = 0;
    await waitFor("v2 to serve alone", async () => {
      const running = (await s.containers(name)).filter((c) => c.state === "running");
      if (running.length === 0) gaps++;
      for (const c of running) bodies.add(await s.body(c.id, network).catch(() => "unready"));
      return running.length === 1 && running[0]!.name !== first.activeContainer && (await s.body(running[0]!.id, network)) === "v2\n" ? true : undefined;
    }, { intervalMs: 20 });
    expect(gaps).toBe(0);
    expect(bodies.has("v1\n")).toBe(true);
    const st = await s.waitPhase(name, ["running"]);
    expect(st.image).toBe(IMAGES.v2.tag);
    expect(await s.containers(name)).toHaveLength(1);
  });

  it("a never-ready image fails, is removed, and the old container keeps serving", async () => {
    const name = `never-${s.shortName}`;
    await svc(name, { readyBudgetSeconds: 2 });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const ok = await s.waitPhase(name, ["running"]);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image: IMAGES.never.tag } });
    const st = await s.waitPhase(name, ["failed"]);
    expect(st.message).toMatch(/not ready within 2s/);
    expect(st.message).toContain(ok.activeContainer!);
    const cs = await s.containers(name);
    expect(cs.map((c) => c.name)).toEqual([ok.activeContainer]);
    expect(await s.body(cs[0]!.id, networkName(s.shortName, appId))).toBe("v1\n");
    const [rel] = await listReleases({ ctx: s.ctx, envId: s.ctx.envId, name });
    expect(rel?.outcome).toBe("failed");
    // No churn: the failed release is not retried while nothing changes.
    await s.runtime.listContainers([]);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await s.containers(name)).map((c) => c.name)).toEqual([ok.activeContainer]);
  });

  it("a container that exits fails the deploy with its exit code", async () => {
    const name = `crash-${s.shortName}`;
    await svc(name, { image: IMAGES.crash.tag, readyBudgetSeconds: 20 });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const st = await s.waitPhase(name, ["failed"], 30_000);
    expect(st.message).toMatch(/exited with code 1/);
    expect(await s.containers(name)).toHaveLength(0);
  });

  it("restart gives a fresh container of the same image", async () => {
    const name = `restart-${s.shortName}`;
    await svc(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const before = await s.waitPhase(name, ["running"]);
    const [c0] = await s.containers(name);
    await restartService({ ctx: s.ctx, envId: s.ctx.envId, name });
    const after = await waitFor("a new container", async () => {
      const st = await s.waitPhase(name, ["running"]);
      return st.activeContainer !== before.activeContainer ? st : undefined;
    });
    const cs = await s.containers(name);
    expect(cs).toHaveLength(1);
    expect(cs[0]!.id).not.toBe(c0!.id);
    expect(after.image).toBe(before.image);
    const [r0, r1] = await listReleases({ ctx: s.ctx, envId: s.ctx.envId, name });
    expect(r0?.kind).toBe("restart");
    expect(r0?.imageId).toBe(r1?.imageId);
  });

  it("deploy with nothing changed leaves the running container alone", async () => {
    const name = `noop-${s.shortName}`;
    await svc(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    await s.waitPhase(name, ["running"]);
    const [c0] = await s.containers(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    await s.waitPhase(name, ["running"]);
    const cs = await s.containers(name);
    expect(cs.map((c) => c.id)).toEqual([c0!.id]);
  });

  it("recreate stops the old container before starting the new one", async () => {
    const name = `recreate-${s.shortName}`;
    await svc(name, { strategy: "recreate" });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    await s.waitPhase(name, ["running"]);
    const [old] = await s.containers(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image: IMAGES.v2.tag } });
    // Sample: the two containers never run at the same time.
    let overlap = 0;
    await waitFor("v2 running", async () => {
      const cs = await s.containers(name);
      if (cs.filter((c) => c.state === "running").length > 1) overlap++;
      return cs.length === 1 && cs[0]!.id !== old!.id && cs[0]!.state === "running" ? true : undefined;
    }, { intervalMs: 20 });
    expect(overlap).toBe(0);
    expect((await s.waitPhase(name, ["running"])).image).toBe(IMAGES.v2.tag);
  });

  it("a service container removed by hand comes back at once (Docker events), not at the next resync", async () => {
    const name = `heal-${s.shortName}`;
    await svc(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const st = await s.waitPhase(name, ["running"]);
    const [c0] = await s.containers(name);
    await s.runtime.docker.getContainer(c0!.id).remove({ force: true });
    // The harness resyncs every 60 s: coming back within 20 s proves the event woke the worker.
    const back = await waitFor(
      "the container to be recreated",
      async () => {
        const cs = await s.containers(name);
        return cs.length === 1 && cs[0]!.id !== c0!.id && cs[0]!.state === "running" ? cs[0] : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(back.name).toBe(st.activeContainer);
    expect((await s.waitPhase(name, ["running"])).activeContainer).toBe(back.name);
  });

  it("an image with its own LABEL levelrail.role=pre-deploy (and other levelrail.* labels) deploys and serves normally", async () => {
    const name = `labelled-${s.shortName}`;
    const tag = `levelrail-test/labelled-${s.shortName}:v1`;
    const other = "00000000-0000-4000-8000-00000000beef";
    await ensureTestImage(s.runtime.docker, {
      tag,
      body: "labelled\n",
      healthy: true,
      labels: { [Labels.role]: Roles.preDeploy, [Labels.service]: other, [Labels.release]: other, [Labels.app]: other, [Labels.instance]: "someone-else" },
    });
    try {
      await svc(name, { image: tag });
      await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
      const st = await s.waitPhase(name, ["running", "failed"]);
      expect(st.phase, st.message).toBe("running");
      const cs = await s.containers(name);
      expect(cs.map((c) => c.name)).toEqual([st.activeContainer]);
      expect(cs[0]!.labels).toMatchObject({ [Labels.role]: Roles.service, [Labels.service]: await s.serviceId(name), [Labels.app]: appId, [Labels.instance]: s.shortName });
      expect(await s.body(cs[0]!.id, networkName(s.shortName, appId))).toBe("labelled\n");
      // Converged, not mistaken for a leftover hook container on a later pass.
      await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
      expect((await s.waitPhase(name, ["running", "failed"])).activeContainer).toBe(st.activeContainer);
      expect((await s.containers(name)).map((c) => c.id)).toEqual([cs[0]!.id]);
    } finally {
      await deleteService({ ctx: s.ctx, envId: s.ctx.envId, name });
      await waitFor("its containers to go", async () => ((await s.containers(name)).length === 0 ? true : undefined));
      await s.runtime.docker.getImage(tag).remove().catch(() => {});
    }
  });

  it("leaves containers it did not create alone", async () => {
    const name = `foreign-${s.shortName}`;
    const { id } = await svc(name);
    const foreign = await s.runtime.docker.createContainer({
      name: `${s.shortName}-${name}-notours`,
      Image: IMAGES.v1.tag,
      Labels: { "levelrail.service": id }, // no levelrail.managed label: not ours
    });
    try {
      await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
      await s.waitPhase(name, ["running"]);
      await deleteService({ ctx: s.ctx, envId: s.ctx.envId, name });
      await waitFor("its containers to go", async () => ((await s.containers(name)).length === 0 ? true : undefined));
      expect((await foreign.inspect()).Id).toBe(foreign.id);
    } finally {
      await foreign.remove({ force: true });
    }
  });

  it("a container an earlier version labelled with the service's name is adopted after the upgrade, not replaced", async () => {
    const name = `legacy-${s.shortName}`;
    await svc(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const st = await s.waitPhase(name, ["running"]);
    await s.stopWorker();
    // Make the running container what the previous version left: the same name and config, its
    // service label the service's name (no id), restart policy unless-stopped.
    const [old] = await s.containers(name);
    const info = await s.runtime.docker.getContainer(old!.id).inspect();
    await s.runtime.removeContainer(old!.id);
    const legacy = await s.runtime.docker.createContainer({
      name: st.activeContainer!,
      Image: info.Config.Image,
      Cmd: info.Config.Cmd,
      Env: info.Config.Env,
      Labels: { ...info.Config.Labels, "levelrail.service": name },
      HostConfig: { ...info.HostConfig, RestartPolicy: { Name: "unless-stopped", MaximumRetryCount: 0 } },
      NetworkingConfig: { EndpointsConfig: { [networkName(s.shortName, appId)]: {} } },
    });
    await legacy.start();

    const worker = await s.startWorker();
    for (let i = 0; i < 2; i++) {
      await worker.resync();
      await worker.application.idle();
    }
    const after = await s.waitPhase(name, ["running"]);
    expect(after.activeContainer).toBe(st.activeContainer);
    const now = await s.runtime.inspectContainer(legacy.id);
    expect(now?.state).toBe("running"); // the very same container, never replaced
    await waitFor("the data plane to answer the adopted container", async () =>
      (await s.resolve(`${name}.shop.${s.shortName}.internal`)) === now?.addresses[networkName(s.shortName, appId)] ? true : undefined,
    );
  });

  it("a worker killed between 'new started' and 'old removed' converges to exactly one container", async () => {
    const name = `crashmid-${s.shortName}`;
    const { id } = await svc(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    await s.waitPhase(name, ["running"]);
    await s.stopWorker();

    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image: IMAGES.v2.tag } });
    // A worker that dies at its first removal: the new container is up and ready, the old one is still there.
    const store = pgServiceStore(s.db);
    // Its probes wake nothing: the loop below runs its passes.
    const prober = new ProberManager({ probe: (t, ms) => httpProber.probe(t.url, ms), intervalMs: 100, wake: () => {} });
    const containers = new ContainerInformer({ runtime: s.runtime, shortName: s.shortName, log: () => {} });
    await containers.start();
    const dying = applicationController({
      shortName: s.shortName,
      runtime: { ...s.runtime, removeContainer: async () => { throw new Error("worker killed"); } },
      containers,
      store,
      status: store,
      prober,
      probeIntervalMs: 100,
      envStores: pgEnvStores(s.db, s.kit.keyring),
      registry: undefined,
      hooks: undefined,
      defaultHookTimeoutSeconds: 300,
      networkPool: { pool: DEFAULT_NETWORK_POOL, bits: APP_SUBNET_BITS },
      mesh: { async setActive() {} },
      drainMs: 0,
      deploys: undefined,
      pulls: undefined,
    });
    await waitFor("the dying worker to reach the removal", async () => {
      try {
        await dying.reconcile(formatKey(serviceKey(id)));
        return undefined;
      } catch (err) {
        return (err as Error).message === "worker killed" ? true : undefined;
      }
    });
    prober.stop();
    containers.stop();
    expect((await s.containers(name)).filter((c) => c.state === "running")).toHaveLength(2);

    await s.startWorker();
    // The dying worker had switched already (the release succeeded): the next one only drains.
    const cs = await waitFor("exactly one container", async () => {
      const all = await s.containers(name);
      return all.length === 1 ? all : undefined;
    });
    const st = await waitFor("the status to show v2", async () => {
      const x = await s.waitPhase(name, ["running"]);
      return x.image === IMAGES.v2.tag ? x : undefined;
    });
    expect(cs[0]!.name).toBe(st.activeContainer);
    expect(st.image).toBe(IMAGES.v2.tag);
  });
});
