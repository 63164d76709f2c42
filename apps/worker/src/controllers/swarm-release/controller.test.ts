import { FakeEngine } from "@levelrail/docker/fake";
import { FakeSwarm } from "@levelrail/docker/swarm/fake";
import type { ActiveEntry } from "@levelrail/spec/dataplane";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { networkName } from "@levelrail/spec/naming";
import { describe, expect, it } from "vitest";
import type { DesiredRelease } from "../application/ports";
import { MemoryRecorder, MemoryStore, spec } from "../application/testbed";
import { swarmReleaseController } from "./controller";

// The controller as the worker's queue runs it, on the stateful fake swarm: the stored service read,
// its env resolved, one pass per key, again when a pass asks.

const ID = "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const KEY = formatKey(serviceKey(ID));
const DIGEST = `sha256:${"e".repeat(64)}`;

function setup(over: { release?: Partial<DesiredRelease>; secretKeys?: string[]; secrets?: Record<string, string>; databaseEnv?: Record<string, { from: string }>; edgesBehind?: (serviceId: string) => string[]; now?: () => number } = {}) {
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
  const runs = new MemoryRecorder();
  /** Database joins asked, in order; `dbDown` makes them fail as a database not running yet does. */
  const attached: string[] = [];
  const db = { down: false };
  const controller = swarmReleaseController({
    deps: {
      shortName: "lr",
      swarm,
      // The manager's engine holds no copy: images are the registry's (pinned) here.
      images: new FakeEngine(),
      async ensureNetwork(appId) {
        await swarm.createOverlayNetwork({ name: networkName("lr", appId), labels: {}, subnet: null, gateway: null, encrypted: false, mtu: null });
        joined.push(networkName("lr", appId));
      },
      async attachDatabases(serviceId) {
        if (db.down) throw new Error("database shopdb is not running yet; the deploy goes on once it is");
        attached.push(`${serviceId} before ${swarm.services.size} services`);
      },
      prober: { probe: async () => ({ ready: true, detail: "HTTP 200" }) },
      status: store,
      hooks: runs,
      active: { setActive: async (id, e) => void (active[id] = e) },
      drainMs: 0,
      ...(over.edgesBehind ? { edgesBehind: over.edgesBehind } : {}),
      ...(over.now ? { now: over.now } : {}),
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
  return { swarm, store, release, active, joined, controller, converge, runs, attached, db };
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

  it("runs a release's pre-deploy hook as a swarm job of its image before its service is made, and its post-deploy hook before the switch", async () => {
    const hooks = { preDeploy: ["./migrate", "--up"], postDeploy: ["./warm"], timeoutSeconds: 60 };
    const { swarm, store, release, active, converge, runs } = setup({ release: { spec: spec({ image: "reg/web:v1", replicas: 2, hooks }) }, secretKeys: ["TOKEN"], secrets: { TOKEN: "hunter2-secret" } });
    const jobs: { name: string; entrypoint: readonly string[] | undefined; command: readonly string[] | undefined; services: number; role: string | undefined }[] = [];
    swarm.jobOutcome = (s) => {
      jobs.push({ name: s.name, entrypoint: s.entrypoint, command: s.command, services: [...swarm.services.values()].filter((x) => x.spec.mode !== "job").length, role: s.labels["levelrail.role"] });
      return { exitCode: 0, output: `ran ${s.command?.join(" ")} with hunter2-secret\n` };
    };
    await converge();
    expect(store.releases.get(release.id)).toMatchObject({ outcome: "succeeded" });
    expect(jobs.map((j) => [j.role, j.command, j.services])).toEqual([
      ["pre-deploy", ["./migrate", "--up"], 0], // before the release's service was made
      ["post-deploy", ["./warm"], 1],
    ]);
    // With secrets, the loader runs the argv; the jobs are gone once they ended.
    expect(jobs[0]?.entrypoint?.[0]).toBe("/bin/sh");
    expect([...swarm.services.values()].map((x) => x.spec.mode ?? "replicated")).toEqual(["replicated"]);
    expect(active[ID]?.tasks).toHaveLength(2);
    // Each run recorded with its output, the service's secret redacted.
    expect(runs.runs.map((r) => [r.phase, r.outcome, r.output])).toEqual([
      ["pre", "succeeded", "ran ./migrate --up with [redacted]\n"],
      ["post", "succeeded", "ran ./warm with [redacted]\n"],
    ]);
  });

  it("a failing pre-deploy hook fails the release before anything serves; a failing post-deploy hook fails it before the switch, its service removed", async () => {
    const pre = setup({ release: { spec: spec({ image: "reg/web:v1", hooks: { preDeploy: ["./migrate"], postDeploy: null, timeoutSeconds: 60 } }) } });
    pre.swarm.jobOutcome = () => ({ exitCode: 3, output: "no database\n" });
    await pre.converge();
    expect(pre.store.releases.get(pre.release.id)).toMatchObject({ outcome: "failed", message: 'pre-deploy hook ["./migrate"] failed with exit code 3' });
    expect(await pre.swarm.listServices([])).toEqual([]);
    expect(pre.store.status).toMatchObject({ phase: "failed" });

    const post = setup();
    await post.converge();
    const serving = post.store.status?.activeContainer;
    post.store.deploy({ id: "rel-2", spec: spec({ image: "reg/web:v1", replicas: 2, hooks: { preDeploy: null, postDeploy: ["./warm"], timeoutSeconds: 60 } }) });
    post.swarm.jobOutcome = () => ({ exitCode: 1, output: "" });
    await post.converge();
    expect(post.store.releases.get("rel-2")).toMatchObject({ outcome: "failed", message: 'post-deploy hook ["./warm"] failed with exit code 1' });
    expect((await post.swarm.listServices([])).map((x) => x.name)).toEqual([serving]);
    expect(post.store.status).toMatchObject({ phase: "failed", activeContainer: serving });
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

  it("keeps the old release's tasks while another node's edge has not applied the switch, at most 45 s after the drain", async () => {
    let behind = ["node-w"];
    let skew = 0;
    const asked = new Set<string>();
    const { swarm, store, release, controller, converge } = setup({ edgesBehind: (id) => (asked.add(id), behind), now: () => Date.now() + skew });
    await converge();
    const names = async () => (await swarm.listServices([`levelrail.service=${ID}`])).map((x) => x.name).sort();
    const first = await names();
    store.deploy({ id: "rel-2", spec: release.spec });
    for (let i = 0; i < 6; i++) await controller.reconcile(KEY);
    expect(store.releases.get("rel-2")).toMatchObject({ outcome: "succeeded" });
    // Switched, but a node's Caddy may still send requests to the old tasks: they stay.
    expect((await names()).length).toBe(2);
    expect([...asked]).toEqual([ID]); // asked about this service's entry, not the newest state
    behind = [];
    await converge();
    expect(await names()).not.toEqual(expect.arrayContaining(first));
    expect(await names()).toHaveLength(1);
    // A node whose edge never catches up holds the old tasks only so long.
    behind = ["node-w"];
    store.deploy({ id: "rel-3", spec: release.spec });
    for (let i = 0; i < 6; i++) await controller.reconcile(KEY);
    expect((await names()).length).toBe(2);
    skew = 45_001;
    await converge();
    expect(await names()).toHaveLength(1);
  });

  it("fails a release with secrets whose image the manager cannot pull, saying so", async () => {
    const { swarm, store, release, converge } = setup({ secretKeys: ["TOKEN"], secrets: { TOKEN: "x" } });
    swarm.images.clear();
    await converge();
    expect(store.releases.get(release.id)).toMatchObject({ outcome: "failed", message: expect.stringContaining("the manager could not pull reg/web:v1") });
    expect(await swarm.listServices([])).toEqual([]);
  });

  it("joins the service's databases to the app's overlay before its service is made; one not running yet holds the deploy, retried", async () => {
    const { swarm, store, release, controller, converge, attached, db } = setup();
    db.down = true;
    await expect(controller.reconcile(KEY)).rejects.toThrow(/not running yet/);
    expect(await swarm.listServices([])).toEqual([]);
    db.down = false;
    await converge();
    expect(attached).toEqual([`${ID} before 0 services`]);
    expect(store.releases.get(release.id)).toMatchObject({ outcome: "succeeded" });
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
