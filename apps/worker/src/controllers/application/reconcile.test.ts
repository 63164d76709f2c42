import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Labels } from "@levelrail/spec/naming";
import { TerminalError } from "../../reconcile/errors";
import { DRAIN_MS, GATEWAY, IMAGE_ID, IMAGE_REF, KEY, NETWORK, NEW, NOW, OLD, OLD_IMAGE_ID, SVC_ID, spec, testbed } from "./testbed";

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const ENTRY_NEW = { appId: "app-1", app: "shop", service: "web", container: NEW, port: 8080 };
const ENTRY_OLD = { ...ENTRY_NEW, container: OLD };

describe("application controller: first deploy", () => {
  it("pulls the missing image and runs one ready container, live under unless-stopped and published", async () => {
    const t = testbed();
    await t.converge();
    expect(t.engine.pulls).toEqual([{ ref: IMAGE_REF, auth: null }]);
    expect(t.names()).toEqual([NEW]);
    const c = t.engine.get(NEW)!;
    expect(c).toMatchObject({ state: "running", restartPolicy: "unless-stopped", labels: expect.objectContaining({ [Labels.service]: SVC_ID, [Labels.release]: "rel-2" }) });
    expect(c.options.HostConfig).toMatchObject({ Dns: [GATEWAY], DnsSearch: ["shop.lrt.internal"] });
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY_NEW);
    expect(t.store.release).toMatchObject({ outcome: "succeeded", imageId: IMAGE_ID });
    expect(t.store.status).toMatchObject({ phase: "running", activeContainer: NEW, message: "", crashLooping: false, restarts: 0, lastExit: null });
    expect(t.deploys).toEqual([["rel-2", "succeeded"]]);
    expect(t.pulled).toEqual([[IMAGE_ID, IMAGE_REF]]); // it brought the image: ours to collect once no release needs it
    // The probe was asked of the prober manager, on the container's address: no polling pass.
    expect(t.probes.registered).toEqual([expect.objectContaining({ key: KEY, url: `http://${c.addresses[NETWORK]}:8080/healthz`, budgetMs: 60_000 })]);
  });

  it("makes the app network when it is missing", async () => {
    const t = testbed();
    await t.engine.removeNetwork(NETWORK);
    await t.converge();
    const net = await t.engine.inspectNetwork(NETWORK);
    expect(net).toMatchObject({ labels: { "levelrail.app": "app-1" } });
    expect(t.engine.get(NEW)?.options.HostConfig?.Dns).toEqual([net!.gateway]);
  });

  it("a network that only has the app network's name (not its labels) is never joined: the deploy fails, nothing is created", async () => {
    const t = testbed();
    await t.engine.removeNetwork(NETWORK);
    t.engine.addNetwork({ name: NETWORK, labels: { "levelrail.managed": "true", "levelrail.instance": "lrt", "levelrail.app": "someone-else" }, subnet: "10.9.0.0/26", gateway: "10.9.0.1" });
    await t.converge();
    expect(t.names()).toEqual([]);
    expect(t.store.release).toMatchObject({ outcome: "failed", message: `network ${NETWORK} exists but is not this app's (its labels do not say so); remove it and deploy again` });
    expect((await t.engine.inspectNetwork(NETWORK))?.labels["levelrail.app"]).toBe("someone-else");
  });

  it("an image's own levelrail.* labels never change how its container is treated", async () => {
    const t = testbed();
    t.engine.imageLabels.set(IMAGE_ID, { [Labels.role]: "pre-deploy", [Labels.service]: "someone-else", [Labels.release]: "rel-x", [Labels.instance]: "other" });
    await t.converge();
    expect(t.names()).toEqual([NEW]);
    expect(t.engine.get(NEW)).toMatchObject({ state: "running", restartPolicy: "unless-stopped", labels: expect.objectContaining({ [Labels.role]: "service", [Labels.service]: SVC_ID, [Labels.release]: "rel-2", [Labels.instance]: "lrt" }) });
    expect(t.store.release).toMatchObject({ outcome: "succeeded" });
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY_NEW);
  });

  it("records when the image was built with its id: the OCI created label over the engine's time, on a pull and on a pin", async () => {
    const pulled = testbed();
    pulled.engine.imageTimes.set(IMAGE_ID, "2026-10-01T12:00:00Z");
    await pulled.converge();
    expect(pulled.store.release).toMatchObject({ imageId: IMAGE_ID, imageCreatedAt: new Date("2026-10-01T12:00:00Z") });

    const pinned = testbed();
    pinned.engine.images.set(IMAGE_REF, IMAGE_ID);
    pinned.engine.imageTimes.set(IMAGE_ID, "2026-10-01T12:00:00Z");
    pinned.engine.imageLabels.set(IMAGE_ID, { "org.opencontainers.image.created": "2026-09-30T08:00:00Z" });
    await pinned.converge();
    expect(pinned.engine.pulls).toEqual([]);
    expect(pinned.store.release).toMatchObject({ imageId: IMAGE_ID, imageCreatedAt: new Date("2026-09-30T08:00:00Z") });
  });

  it("does not pull a fixed tag the engine has; pulls :latest every time, with the declared login", async () => {
    const t = testbed();
    t.engine.images.set(IMAGE_REF, IMAGE_ID);
    await t.converge();
    expect(t.engine.pulls).toEqual([]);

    const auth = { username: "u", password: "p", serveraddress: "registry.example.com" };
    const l = testbed({ release: { spec: spec({ image: "shop:latest" }) }, service: { registryCredentialId: "cred-1" }, registry: { registryAuth: async () => auth } });
    l.engine.images.set("shop:latest", "sha256:old");
    l.engine.registry.set("shop:latest", IMAGE_ID);
    await l.converge();
    expect(l.engine.pulls).toEqual([{ ref: "shop:latest", auth }]);
    expect(l.store.release?.imageId).toBe(IMAGE_ID);
    expect(l.pulled).toEqual([[IMAGE_ID, "shop:latest"]]); // a new image under the tag: ours

    // A pull that finds the engine already had that very image under the tag brings nothing: not ours.
    const same = testbed({ release: { spec: spec({ image: "shop:latest" }) } });
    same.engine.images.set("shop:latest", IMAGE_ID);
    same.engine.registry.set("shop:latest", IMAGE_ID);
    await same.converge();
    expect(same.engine.pulls).toHaveLength(1);
    expect(same.pulled).toEqual([]);
  });

  it("an image another organization pulled with its login is refused to a service without one: no pull, no container", async () => {
    const t = testbed();
    t.engine.logins.set(IMAGE_REF, "their-password");
    // Someone else's pull left it in the engine's cache (with its RepoDigests).
    await t.engine.pullImage(IMAGE_REF, { username: "a", password: "their-password", serveraddress: "registry.example.com" }, () => {});
    t.engine.pulls.length = 0;
    await t.converge();
    expect(t.engine.pulls).toEqual([]);
    expect(t.names()).toEqual([]);
    expect(t.store.release).toMatchObject({ outcome: "failed", imageId: null, message: expect.stringContaining(`image ${IMAGE_REF} is on this host, but its registry did not confirm this service may pull it without a registry credential`) });
    expect(t.store.release?.message).toContain("attach a registry credential");

    // The same image with a login the registry accepts runs, still without a pull.
    const auth = { username: "b", password: "their-password", serveraddress: "registry.example.com" };
    const ok = testbed({ service: { registryCredentialId: "cred-1" }, registry: { registryAuth: async () => auth } });
    ok.engine.logins.set(IMAGE_REF, "their-password");
    await ok.engine.pullImage(IMAGE_REF, auth, () => {});
    ok.engine.pulls.length = 0;
    await ok.converge();
    expect(ok.engine.pulls).toEqual([]);
    expect(ok.store.release).toMatchObject({ outcome: "succeeded", imageId: IMAGE_ID });
  });

  it("an image built on the host (no RepoDigests) is used by any service without asking a registry", async () => {
    const t = testbed();
    t.engine.logins.set(IMAGE_REF, "nobody-has-it");
    t.engine.images.set(IMAGE_REF, IMAGE_ID);
    await t.converge();
    expect(t.store.release).toMatchObject({ outcome: "succeeded", imageId: IMAGE_ID });
  });

  it("a declared secret that cannot be resolved fails the release before anything is pulled or started", async () => {
    const t = testbed({ service: { envTarget: { serviceId: SVC_ID, orgId: "o", projectId: "p", environmentId: "e", env: {}, secretKeys: ["API_KEY"], storageTargetId: null, databaseEnv: {} } } });
    await t.converge();
    expect(t.store.release).toMatchObject({ outcome: "failed", message: expect.stringContaining("API_KEY") });
    expect(t.engine.pulls).toEqual([]);
    expect(t.names()).toEqual([]);
  });

  it("a registry credential the worker cannot resolve fails before any pull", async () => {
    const t = testbed({ service: { registryCredentialId: "cred-1" } });
    await t.converge();
    expect(t.store.status).toMatchObject({ phase: "failed", message: "registry credential cred-1 is declared but the worker has no registry store" });
    expect(t.engine.pulls).toEqual([]);
  });
});

describe("application controller: a deploy over a live release", () => {
  const over = () => {
    const t = testbed();
    t.live();
    t.mesh.set(SVC_ID, ENTRY_OLD);
    return t;
  };

  it("blue-green: the new container starts before the old one goes; the old one drains, then is removed", async () => {
    const t = over();
    const r = await t.converge();
    expect(r).toEqual({ requeueAfterMs: DRAIN_MS });
    expect(t.names()).toEqual([NEW, OLD].sort());
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY_NEW);
    expect(t.store.status).toMatchObject({ phase: "deploying", step: "cutover", activeContainer: NEW });
    vi.setSystemTime(NOW + DRAIN_MS);
    await t.converge();
    expect(t.names()).toEqual([NEW]);
    expect(t.engine.calls.indexOf(`start ${NEW}`)).toBeLessThan(t.engine.calls.indexOf(`remove ${OLD}`));
    expect(t.store.status).toMatchObject({ phase: "running", activeContainer: NEW });
  });

  it("recreate: the old container is stopped and removed before the new one is created", async () => {
    const t = testbed({ release: { spec: spec({ strategy: "recreate" }) } });
    t.live();
    await t.converge();
    expect(t.names()).toEqual([NEW]);
    expect(t.engine.calls.filter((c) => !c.startsWith("pull"))).toEqual([`stop ${OLD}`, `remove ${OLD}`, `create ${NEW}`, `start ${NEW}`]);
  });

  it("a pull failure fails the release with the engine's message; the old container keeps serving", async () => {
    const t = over();
    t.engine.failNextPull("toomanyrequests: rate limited");
    await t.converge();
    expect(t.names()).toEqual([OLD]);
    expect(t.store.release).toMatchObject({ outcome: "failed", message: `image ${IMAGE_REF} could not be pulled: toomanyrequests: rate limited` });
    expect(t.store.status).toMatchObject({ phase: "failed", activeContainer: OLD, message: `image ${IMAGE_REF} could not be pulled: toomanyrequests: rate limited; ${OLD} keeps serving` });
    expect(t.deploys).toEqual([["rel-2", "failed"]]);
  });

  it("a container that exits before it is ready is removed and fails the release with its code and output", async () => {
    const t = over();
    t.engine.script = () => ({ chunks: ["listen EADDRINUSE\n"], exit: 1 });
    await t.converge();
    expect(t.names()).toEqual([OLD]);
    expect(t.store.release?.message).toBe(`${NEW} exited with code 1 before it was ready; last output: listen EADDRINUSE`);
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY_OLD);
  });

  it("never ready within the budget: waits on the prober (no polling), then fails and removes only the new one", async () => {
    const t = over();
    t.probes.ready = false;
    const r = await t.converge();
    expect(r?.requeueAfterMs).toBeGreaterThan(60_000); // only a safety net: the prober wakes the key
    expect(t.store.status).toMatchObject({ phase: "deploying", step: "probing", activeContainer: OLD });
    vi.setSystemTime(NOW + 60_000);
    await t.converge();
    expect(t.names()).toEqual([OLD]);
    expect(t.store.status?.message).toBe(`${NEW} was not ready within 60s (GET /healthz on port 8080: HTTP 503); ${OLD} keeps serving`);
  });

  it("a failed release causes no Docker write on later passes, and keeps the old container published", async () => {
    const t = over();
    t.engine.failNextPull("boom");
    await t.converge();
    const calls = [...t.engine.calls];
    t.mesh.clear(); // a restarted worker's data plane: republished on the next pass
    for (let i = 0; i < 3; i++) await t.pass();
    expect(t.engine.calls).toEqual(calls);
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY_OLD);
    expect(t.store.status).toMatchObject({ phase: "failed", activeContainer: OLD });
  });

  it("a worker that dies at the first removal converges to exactly one container on the next worker", async () => {
    const t = over();
    const remove = t.engine.removeContainer.bind(t.engine);
    t.engine.removeContainer = async () => {
      throw new Error("worker killed");
    };
    vi.setSystemTime(NOW);
    await expect(
      (async () => {
        await t.converge();
        vi.setSystemTime(NOW + DRAIN_MS);
        await t.converge();
      })(),
    ).rejects.toThrow("worker killed");
    expect(t.names()).toEqual([NEW, OLD].sort());
    t.engine.removeContainer = remove;
    await t.converge();
    expect(t.names()).toEqual([NEW]);
    expect(t.store.status).toMatchObject({ phase: "running", activeContainer: NEW });
  });

  it("a name taken by a container that is not this service's fails the release, and that container is left alone", async () => {
    const t = over();
    t.engine.add({ name: NEW, state: "running", labels: { "levelrail.service": SVC_ID } }); // no managed label: not ours
    await t.converge();
    expect(t.store.release).toMatchObject({ outcome: "failed", message: expect.stringContaining(`container name ${NEW} is taken`) });
    expect(t.engine.get(NEW)?.labels).toEqual({ "levelrail.service": SVC_ID });
    expect(t.engine.get(OLD)?.state).toBe("running");
  });

  it("a Deploy that changes nothing adopts the running container of another release", async () => {
    const t = testbed();
    t.engine.images.set(IMAGE_REF, IMAGE_ID);
    t.live(NEW, "rel-1");
    await t.converge();
    expect(t.engine.calls).toEqual([]);
    expect(t.store.release?.outcome).toBe("succeeded");
    expect(t.deploys).toEqual([]); // not a cutover
  });
});

describe("application controller: a live release's container crashes (the engine's to restart)", () => {
  const live = () => {
    const t = testbed({ release: { outcome: "succeeded", imageId: IMAGE_ID, finishedAt: NOW - 600_000 } });
    const c = t.live(NEW, "rel-2");
    return { t, c };
  };

  it("exited: not removed, not recreated, not failed; reported with its exit", async () => {
    const { t, c } = live();
    vi.setSystemTime(NOW + 1000);
    t.engine.exit(NEW, 137);
    await t.converge();
    expect([...t.engine.containers.values()].map((x) => x.id)).toEqual([c.id]);
    expect(t.engine.calls).toEqual([]);
    expect(t.store.release?.outcome).toBe("succeeded");
    expect(t.store.status).toMatchObject({ phase: "running", activeContainer: NEW, message: "container exited with code 137; the engine restarts it (0 restarts)", lastExit: { code: 137, at: new Date(NOW + 1000).toISOString() } });
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY_NEW);
  });

  it("restarted by the engine: running, its restarts counted", async () => {
    const { t } = live();
    t.engine.restart(NEW, 1);
    await t.converge();
    expect(t.store.status).toMatchObject({ phase: "running", restarts: 1, crashLooping: false, lastExit: { code: 1 } });
  });

  it("crash-looping: reported, still nothing removed or deployed, and looked at again when the loop would end", async () => {
    const { t } = live();
    for (let i = 0; i < 3; i++) t.engine.restart(NEW, 1);
    const r = await t.converge();
    expect(r).toEqual({ requeueAfterMs: 60_000 });
    expect(t.store.status).toMatchObject({ phase: "running", crashLooping: true, restarts: 3 });
    t.engine.crashLoop(NEW, 1, 1);
    await t.converge();
    expect(t.store.status).toMatchObject({ phase: "running", crashLooping: true, restarts: 4, message: "container exited with code 1; the engine restarts it (4 restarts)" });
    expect(t.engine.calls).toEqual([]);
    expect(t.deploys).toEqual([]);
  });

  it("removed by hand: made again", async () => {
    const { t } = live();
    await t.engine.removeContainer(NEW);
    await t.converge();
    expect(t.engine.get(NEW)).toMatchObject({ state: "running", restartPolicy: "unless-stopped" });
  });

  it("removed by hand with its image: fails naming the image instead of retrying a create the engine refuses", async () => {
    const { t } = live();
    await t.engine.removeContainer(NEW);
    t.engine.images.delete(IMAGE_REF);
    await t.converge();
    expect(t.engine.get(NEW)).toBeUndefined();
    expect(t.store.status).toMatchObject({ phase: "failed", message: `image ${IMAGE_ID} (${IMAGE_REF}), which this release runs, is no longer on this host; deploy ${IMAGE_REF} again to pull it` });
  });
});

describe("application controller: nothing to run", () => {
  it("no release: removes every container of the service, hook containers included, and reports stopped", async () => {
    const t = testbed({ release: undefined });
    t.store.service = { ...t.store.service!, release: null };
    t.live();
    t.engine.add({ name: `${OLD}-pre-deploy`, labels: { ...t.engine.get(OLD)!.labels, [Labels.role]: "pre-deploy" } });
    await t.converge();
    expect(t.names()).toEqual([]);
    expect(t.store.status).toMatchObject({ phase: "stopped", message: "not deployed yet" });
    expect(t.mesh.get(SVC_ID)).toBeNull();
  });

  it("service deleted: removes its containers only (not another service's, another installation's or a foreign one)", async () => {
    const t = testbed({ service: null });
    t.live();
    t.engine.add({ name: "lrt-api-aaaaaaaaaaaa", labels: { "levelrail.managed": "true", "levelrail.instance": "lrt", "levelrail.service": "other-id" } });
    t.engine.add({ name: "other-web-aaaaaaaaaaaa", labels: { "levelrail.managed": "true", "levelrail.instance": "other", "levelrail.service": SVC_ID } });
    t.engine.add({ name: "foreign", labels: { "levelrail.service": SVC_ID } });
    await t.converge();
    expect(t.names()).toEqual(["foreign", "lrt-api-aaaaaaaaaaaa", "other-web-aaaaaaaaaaaa"]);
    expect(t.mesh.get(SVC_ID)).toBeNull();
  });

  it("a key that names no service is terminal: retrying cannot help", async () => {
    const t = testbed();
    await expect(t.controller.reconcile("ingress")).rejects.toBeInstanceOf(TerminalError);
  });

  it("the old image's id is kept by the fake engine as a pulled image would be", async () => {
    const t = testbed();
    t.live();
    expect(await t.engine.imageId("registry.example.com/shop:1.4.1")).toBe(OLD_IMAGE_ID);
  });
});

describe("application controller: a pass with nothing to do", () => {
  it("writes no status when the stored one says the same, and writes one that changed", async () => {
    const t = testbed();
    await t.converge();
    const written = t.store.statuses.length;
    await t.pass();
    await t.pass();
    expect(t.store.statuses).toHaveLength(written);
    // The engine restarted the live container: the status changes, and is written once.
    t.engine.restart(NEW, 1);
    await t.pass();
    await t.pass();
    expect(t.store.statuses).toHaveLength(written + 1);
    expect(t.store.status).toMatchObject({ phase: "running", restarts: 1 });
  });

  it("writes every status when the stored one is unknown (a store that does not read it)", async () => {
    const t = testbed({ release: undefined });
    t.store.service = { ...t.store.service!, release: null };
    const read = t.store.getDesiredService.bind(t.store);
    t.store.getDesiredService = async (id) => {
      const s = await read(id);
      if (!s) return null;
      const { storedStatus: _unknown, ...rest } = s;
      return rest;
    };
    await t.pass();
    await t.pass();
    expect(t.store.statuses.map((s) => s.phase)).toEqual(["stopped", "stopped"]);
  });
});

describe("application controller: the container index", () => {
  it("is kept current by the executor itself: with every engine event lost, a deploy over a live release converges, nothing left behind", async () => {
    const t = testbed({ drainMs: 0 });
    t.live();
    t.engine.dropEvents = true;
    await t.converge();
    expect(t.names()).toEqual([NEW]);
    expect(t.informer.list().map((c) => [c.name, c.state, c.restartPolicy])).toEqual([[NEW, "running", "unless-stopped"]]);
    expect(t.store.status).toMatchObject({ phase: "running", activeContainer: NEW });
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY_NEW);
  });
});
