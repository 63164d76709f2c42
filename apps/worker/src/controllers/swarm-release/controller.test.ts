import { FakeSwarm } from "@levelrail/docker/swarm/fake";
import type { ActiveEntry } from "@levelrail/spec/dataplane";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { networkName } from "@levelrail/spec/naming";
import { describe, expect, it } from "vitest";
import type { DesiredRelease } from "../application/ports";
import { MemoryStore, spec } from "../application/testbed";
import { swarmReleaseController } from "./controller";

// The controller as the worker's queue runs it, on the stateful fake swarm: the stored service read,
// its env resolved, one pass per key, again when a pass asks.

const ID = "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const KEY = formatKey(serviceKey(ID));
const DIGEST = `sha256:${"e".repeat(64)}`;

function setup(over: { release?: Partial<DesiredRelease>; secretKeys?: string[]; secrets?: Record<string, string>; databaseEnv?: Record<string, { from: string }> } = {}) {
  const swarm = new FakeSwarm();
  swarm.addNode({ id: "m", hostname: "node-a", address: "10.0.0.1" });
  swarm.addNode({ id: "w", hostname: "node-b", address: "10.0.0.2", role: "worker" });
  swarm.registry.set("reg/web:v1", DIGEST);
  swarm.images.set("reg/web:v1", { entrypoint: ["/bin/web"], cmd: ["--port", "8080"] });
  const release: DesiredRelease = { id: "rel-1", spec: spec({ image: "reg/web:v1", replicas: 2 }), restartNonce: "", imageId: null, outcome: "pending", finishedAt: null, message: "", ...over.release };
  const store = new MemoryStore({
    id: ID, name: "web", appId: "app-1", appName: "shop", environmentId: "env-1", orgId: "org-1", registryCredentialId: null,
    envTarget: { serviceId: ID, orgId: "org-1", projectId: "p-1", environmentId: "env-1", env: {}, secretKeys: over.secretKeys ?? [], storageTargetId: null, databaseEnv: over.databaseEnv ?? {} },
    release,
  });
  const active: Record<string, ActiveEntry | null> = {};
  const joined: string[] = [];
  const controller = swarmReleaseController({
    deps: {
      shortName: "lr",
      swarm,
      async ensureNetwork(appId) {
        await swarm.createOverlayNetwork({ name: networkName("lr", appId), labels: {}, subnet: null, gateway: null, encrypted: false, mtu: null });
        joined.push(networkName("lr", appId));
      },
      prober: { probe: async () => ({ ready: true, detail: "HTTP 200" }) },
      status: store,
      active: { setActive: async (id, e) => void (active[id] = e) },
      drainMs: 0,
    },
    store,
    envStores: over.secrets ? { secrets: { secretsOf: async () => ({ ...over.secrets }) } } : {},
    registry: undefined,
  });
  /** Passes until one asks for no other (at most 20). */
  const converge = async () => {
    for (let i = 0; i < 20; i++) if (!(await controller.reconcile(KEY))) return;
    throw new Error(`no convergence: ${JSON.stringify(store.status)}`);
  };
  return { swarm, store, release, active, joined, controller, converge };
}

describe("the swarm release controller on the worker's queue", () => {
  it("runs a pending release as a swarm service pinned to its digest, switches the data plane to its ready tasks and says where they run", async () => {
    const { swarm, store, release, active, joined, converge } = setup();
    await converge();
    expect(store.releases.get(release.id)).toMatchObject({ outcome: "succeeded" });
    const [svc] = await swarm.listServices([`levelrail.service=${ID}`]);
    expect(svc?.image).toBe(`reg/web:v1@${DIGEST}`);
    expect(joined).toEqual(["lr-app-app-1"]);
    expect(active[ID]?.tasks).toHaveLength(2);
    expect(store.status).toMatchObject({ phase: "running", activeContainer: svc?.name });
    expect(store.status?.replicas?.map((r) => r.node).sort()).toEqual(["node-a", "node-b"]);
  });

  it("refuses a release with hooks before anything is made, naming them", async () => {
    const { swarm, store, release, converge } = setup({ release: { spec: spec({ image: "reg/web:v1", hooks: { preDeploy: ["./migrate"], postDeploy: null, timeoutSeconds: 60 } }) } });
    await converge();
    expect(store.releases.get(release.id)).toMatchObject({ outcome: "failed", message: "hooks do not reach a swarm's tasks yet; remove them from the service to run it on the swarm" });
    expect(await swarm.listServices([])).toEqual([]);
    expect(store.status).toMatchObject({ phase: "failed" });
  });

  it("fails a release whose environment cannot be resolved, saying why", async () => {
    // A declared secret with no secret store to read it from.
    const { swarm, store, release, converge } = setup({ secretKeys: ["TOKEN"] });
    await converge();
    expect(store.releases.get(release.id)).toMatchObject({ outcome: "failed", message: expect.stringMatching(/TOKEN|secret/i) });
    expect(await swarm.listServices([])).toEqual([]);
  });

  it("gives a release's secrets to its tasks as a swarm secret, never in the service's spec, and removes it with the release's service", async () => {
    const { swarm, store, release, converge } = setup({ secretKeys: ["TOKEN"], secrets: { TOKEN: "hunter2-secret" } });
    await converge();
    expect(store.releases.get(release.id)).toMatchObject({ outcome: "succeeded" });
    const [svc] = await swarm.listServices([`levelrail.service=${ID}`]);
    const stored = [...swarm.services.values()][0]!.spec;
    expect(JSON.stringify(stored)).not.toContain("hunter2-secret");
    expect(stored.command).toEqual(["/bin/web", "--port", "8080"]);
    expect(svc?.secrets).toEqual([{ secretId: expect.any(String), secretName: `${svc?.name}-env`, file: "levelrail-env" }]);
    const [secret] = [...swarm.secrets.values()];
    expect(secret?.value.toString()).toBe("export TOKEN='hunter2-secret'\n");
    expect(JSON.stringify(store.status)).not.toContain("hunter2-secret");

    // The next release has its own; the old one's goes when its service does.
    store.deploy({ id: "rel-2", spec: release.spec });
    await converge();
    const after = [...swarm.secrets.values()];
    expect(after).toHaveLength(1);
    expect(after[0]?.id).not.toBe(secret?.id);
    store.service = null;
    await converge();
    expect(swarm.secrets.size).toBe(0);
  });

  it("fails a release with secrets whose image the manager cannot pull, saying so", async () => {
    const { swarm, store, release, converge } = setup({ secretKeys: ["TOKEN"], secrets: { TOKEN: "x" } });
    swarm.images.clear();
    await converge();
    expect(store.releases.get(release.id)).toMatchObject({ outcome: "failed", message: expect.stringContaining("the manager could not pull reg/web:v1") });
    expect(await swarm.listServices([])).toEqual([]);
  });

  it("a deleted service: every swarm service of it goes and the data plane stops naming it", async () => {
    const { swarm, store, active, converge } = setup();
    await converge();
    store.service = null;
    await converge();
    expect(await swarm.listServices([`levelrail.service=${ID}`])).toEqual([]);
    expect(active[ID]).toBeNull();
  });
});
