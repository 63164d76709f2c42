import type { ManagedContainer } from "@levelrail/docker";
import { FakeEngine } from "@levelrail/docker/fake";
import { FakeSwarm } from "@levelrail/docker/swarm/fake";
import type { SwarmServiceInfo, SwarmTask } from "@levelrail/docker/swarm";
import { serviceSpecBody } from "@levelrail/docker/swarm";
import { DatabaseRoles } from "@levelrail/spec/naming";
import { describe, expect, it } from "vitest";
import { postgresEngine } from "./engines/postgres";
import { DB_ID, SHORT, database } from "./plan.cases";
import { APP_NETWORKS_LABEL, type PinnedDesired, type PinnedObserved, SPEC_HASH_LABEL, executePinned, pinnedClientName, pinnedClientOptions, pinnedNetworkName, pinnedServiceSpec, planPinned } from "./pinned";

const engine = postgresEngine({ exec: async () => ({ exitCode: 0 }), execStream: async () => Promise.reject(new Error("unused")) });
const db = database({ placement: { disk: "ssd", zone: "eu-1" }, attachedApps: ["app-2", "app-1"], nodeId: "node-w" });
const appNets = [`${SHORT}-app-app-1`, `${SHORT}-app-app-2`];
const spec = pinnedServiceSpec(SHORT, db, engine, appNets, "secret-id");
const desired: PinnedDesired = { database: db, shortName: SHORT, spec, client: pinnedClientOptions(SHORT, db, engine), port: 5432 };
const NOW = 1_800_000_000_000;

const service = (over: Partial<SwarmServiceInfo> = {}): SwarmServiceInfo => ({
  id: "svc-1",
  name: spec.name,
  version: 7,
  labels: { ...spec.labels },
  image: db.image,
  replicas: 1,
  constraints: [...spec.constraints],
  secrets: [],
  networks: [],
  updateState: null,
  createdAt: NOW - 60_000,
  ...over,
});
const task = (over: Partial<SwarmTask> = {}): SwarmTask => ({
  id: "t-1",
  serviceId: "svc-1",
  nodeId: "node-w",
  slot: 1,
  image: db.image,
  desiredState: "running",
  state: "running",
  ready: true,
  message: "started",
  error: "",
  containerId: "c-task",
  exitCode: null,
  addresses: {},
  updatedAt: NOW - 30_000,
  ...over,
});
const client = (over: Partial<ManagedContainer> = {}): ManagedContainer => ({
  id: "client-1",
  name: pinnedClientName(SHORT, db),
  state: "running",
  labels: { "levelrail.role": DatabaseRoles.client },
  startedAt: NOW - 20_000,
  exitCode: null,
  createdAt: NOW - 20_000,
  finishedAt: 0,
  restartPolicy: "unless-stopped",
  restartCount: 0,
  addresses: {},
  ...over,
});
const observed = (over: Partial<PinnedObserved> = {}): PinnedObserved => ({
  now: NOW,
  services: [service()],
  tasks: [task()],
  clients: [client()],
  imagePresent: null,
  imageRefused: null,
  network: true,
  secret: { id: "secret-id", name: `${SHORT}-db-${DB_ID}-password`, labels: {} },
  appNetworks: appNets,
  nodes: { "node-w": "worker-1", "node-m": "manager-1" },
  home: { state: "ready", availability: "active" },
  candidates: [{ id: "node-w", name: "worker-1" }],
  mtu: 1450,
  probe: { ready: true, detail: "accepting connections", at: NOW - 1_000 },
  restore: null,
  lastScheduledFor: null,
  openBackups: [],
  ...over,
});

describe("a pinned database's service spec", () => {
  it("places one replica by the labels, mounts its volume, takes the password from a secret file and joins its own and the apps' networks under its name", () => {
    // On its node once chosen; before, by the labels.
    expect(spec.constraints).toEqual(["node.id==node-w"]);
    expect(pinnedServiceSpec(SHORT, { ...db, nodeId: null }, engine, appNets, "secret-id").constraints).toEqual(["node.labels.disk==ssd", "node.labels.zone==eu-1"]);
    expect(spec.replicas).toBe(1);
    expect(spec.updateOrder).toBe("stop-first");
    expect(spec.mounts).toEqual([{ source: db.volume, target: "/var/lib/postgresql/data", labels: expect.objectContaining({ "levelrail.database": DB_ID }) }]);
    expect(spec.env).toMatchObject({ POSTGRES_USER: "postgres", POSTGRES_DB: "shopdb", POSTGRES_PASSWORD_FILE: "/run/secrets/postgres-password" });
    expect(JSON.stringify(spec)).not.toContain(db.credentials.password);
    expect(spec.networks).toEqual([pinnedNetworkName(SHORT, DB_ID), ...appNets].map((target) => ({ target, aliases: ["shopdb"] })));
    expect(spec.labels[APP_NETWORKS_LABEL]).toBe(appNets.join(","));
    const body = serviceSpecBody(spec) as { TaskTemplate: { ContainerSpec: { Mounts: unknown[] } } };
    expect(body.TaskTemplate.ContainerSpec.Mounts).toEqual([{ Type: "volume", Source: db.volume, Target: "/var/lib/postgresql/data", VolumeOptions: { Labels: expect.objectContaining({ "levelrail.database": DB_ID }) } }]);
  });

  it("changes its hash when the image or the apps change, not when the secret is made again", () => {
    const h = (s: typeof spec) => s.labels[SPEC_HASH_LABEL];
    expect(h(pinnedServiceSpec(SHORT, db, engine, appNets, "another-secret-id"))).toBe(h(spec));
    expect(h(pinnedServiceSpec(SHORT, { ...db, image: "postgres:18" }, engine, appNets, "secret-id"))).not.toBe(h(spec));
    expect(h(pinnedServiceSpec(SHORT, db, engine, appNets.slice(0, 1), "secret-id"))).not.toBe(h(spec));
  });

  it("gives the client the image's sleep on the database's overlay, with PGHOST naming the server", () => {
    expect(desired.client).toMatchObject({ Entrypoint: ["sleep"], Env: ["PGHOST=shopdb", "PGPORT=5432"], HostConfig: { NetworkMode: pinnedNetworkName(SHORT, DB_ID) } });
  });
});

describe("planPinned", () => {
  it.each<[string, Partial<PinnedObserved>, string]>([
    ["no secret yet", { secret: null }, "create-secret"],
    ["its node left the swarm", { nodes: { "node-m": "manager-1" } }, "hold"],
    ["no overlay yet", { network: false }, "create-network"],
    ["no service yet", { services: [] }, "create-service"],
    ["a service left under another name", { services: [service(), service({ id: "svc-old", name: "old" })] }, "remove-services"],
    ["a service given another spec", { services: [service({ labels: { ...spec.labels, [SPEC_HASH_LABEL]: "stale" } })] }, "update-service"],
    ["a client for another image", { clients: [client(), client({ id: "client-0", name: "old-client" })] }, "remove-clients"],
    ["no client", { clients: [] }, "create-client"],
    ["no client, and the manager lacks the image", { clients: [], imagePresent: false }, "pull"],
    ["no client, and the manager's copy of the image is not the database's to run", { clients: [], imagePresent: true, imageRefused: "a database pulls its image without a registry login" }, "hold"],
    ["a stopped client", { clients: [client({ state: "exited" })] }, "start-client"],
    ["no task running yet", { tasks: [task({ state: "pending", message: "pending", error: "no suitable node (scheduling constraints not satisfied on 2 nodes)" })] }, "hold"],
    ["a probe from before the task started", { probe: { ready: true, detail: "ok", at: NOW - 40_000 } }, "await-ready"],
    ["a ready server", {}, "running"],
  ])("%s: %s", (_why, over, kind) => {
    expect(planPinned(desired, observed(over)).kind).toBe(kind);
  });

  it("says why the swarm has not started the server", () => {
    const step = planPinned(desired, observed({ tasks: [task({ state: "pending", error: "no suitable node (scheduling constraints not satisfied on 2 nodes)" })] }));
    expect(step).toMatchObject({ kind: "hold", status: { phase: "starting", message: expect.stringContaining("on worker-1 (pending: no suitable node") } });
  });

  it("chooses its node once, the first ready, active one its labels select; with none, says to label one", () => {
    const unplaced: PinnedDesired = { ...desired, database: { ...db, nodeId: null } };
    expect(planPinned(unplaced, observed({ candidates: [{ id: "node-a", name: "a" }, { id: "node-w", name: "worker-1" }] }))).toEqual({ kind: "pin-node", nodeId: "node-a", name: "a" });
    expect(planPinned(unplaced, observed({ candidates: [] }))).toMatchObject({ kind: "hold", status: { phase: "pending", message: "no ready, active node is labelled disk=ssd, zone=eu-1: label one on the Nodes page" } });
  });

  it("says it is stopped by its node's drain, and what brings it back; failed while its node is down", () => {
    const waiting = [task({ state: "pending", error: "no suitable node (1 node not available for new tasks)" })];
    expect(planPinned(desired, observed({ tasks: waiting, home: { state: "ready", availability: "drain" } }))).toMatchObject({
      kind: "hold",
      status: { phase: "stopped", message: `stopped: its node worker-1 is drained and its data volume ${db.volume} is there; activate worker-1 on the Nodes page to start it again` },
    });
    expect(planPinned(desired, observed({ tasks: waiting, home: { state: "down", availability: "active" } }))).toMatchObject({
      kind: "hold",
      status: { phase: "failed", message: expect.stringContaining("its node worker-1 is down") },
    });
    // A paused node keeps the task it runs: the database runs on.
    expect(planPinned(desired, observed({ home: { state: "ready", availability: "pause" } })).kind).toBe("running");
  });

  it("fails, saying where its data is, when its node left the swarm", () => {
    expect(planPinned(desired, observed({ nodes: {} }))).toMatchObject({ kind: "hold", status: { phase: "failed", message: expect.stringContaining(`its data volume ${db.volume} was there`) } });
  });

  it("runs, naming the node, and looks again within 15 s", () => {
    expect(planPinned(desired, observed())).toMatchObject({ kind: "running", status: { phase: "running", message: expect.stringContaining("on node worker-1") }, requeueAfterMs: 15_000 });
  });

  it("restores in place through its client once the client runs, and finishes a restore whose volume it was switched to", () => {
    const r = { id: "r-1", databaseId: DB_ID, backupId: "b-1", mode: "replace" as const, volume: `${db.volume}-r1`, runner: null };
    expect(planPinned(desired, observed({ restore: r, clients: [] }))).toMatchObject({ kind: "create-client" });
    expect(planPinned(desired, observed({ restore: r }))).toMatchObject({ kind: "restore", restore: r, client: { id: "client-1" }, status: { phase: "starting" } });
    const switched: PinnedDesired = { ...desired, database: { ...db, volume: r.volume } };
    expect(planPinned(switched, observed({ restore: r }))).toMatchObject({ kind: "finish-restore", restore: r });
    expect(planPinned(desired, observed({ restore: { ...r, mode: "into" } }))).toMatchObject({ kind: "fail-restore" });
  });
});

describe("a pinned database's server image on the swarm's nodes", () => {
  const REF = "reg.example/private/pg:15";
  const DIGEST = `sha256:${"d".repeat(64)}`;
  async function create(o: { managerHasPull?: boolean; registryPins?: boolean }) {
    // The manager's engine: the registry wants a login a database never has.
    const manager = new FakeEngine();
    manager.registry.set(REF, "sha256:pg");
    manager.logins.set(REF, "another-organizations-password");
    if (o.managerHasPull) {
      manager.images.set(REF, "sha256:pg");
      manager.repoDigests.set("sha256:pg", [`reg.example/private/pg@${DIGEST}`]);
    }
    const swarm = new FakeSwarm();
    swarm.addNode({ id: "node-w", hostname: "w", address: "10.0.0.2" });
    if (o.registryPins) swarm.registry.set(REF, DIGEST);
    const mine = database({ image: REF, placement: { disk: "ssd" }, nodeId: "node-w" });
    const s = pinnedServiceSpec(SHORT, mine, engine, [], "secret-id");
    const statuses: string[] = [];
    const x = { shortName: SHORT, runtime: manager, swarm, store: { setStatus: async (_id: string, phase: string, message: string) => void statuses.push(`${phase}: ${message}`) } };
    const d: PinnedDesired = { database: mine, shortName: SHORT, spec: { ...s, networks: [], secrets: [] }, client: pinnedClientOptions(SHORT, mine, engine), port: 5432 };
    await executePinned(x as never, d, {} as never, { kind: "create-service", status: { phase: "starting", message: "starting", container: s.name } }, {} as never, (t) => t);
    return { services: [...swarm.services.values()].map((v) => v.spec), statuses, hash: s.labels[SPEC_HASH_LABEL] };
  }

  it("another organization's private pull on the manager, which the registry does not let a database pull: no server is made, the database fails saying why", async () => {
    const r = await create({ managerHasPull: true });
    expect(r.services).toEqual([]);
    expect(r.statuses.at(-1)).toContain(`failed: image ${REF} is on this host, but its registry did not confirm this database may pull it without a registry credential`);
  });

  it("not on the manager and refused by the registry: never left to a node that holds a copy", async () => {
    const r = await create({});
    expect(r.services).toEqual([]);
    expect(r.statuses.at(-1)).toBe(`failed: image ${REF} could not be pulled: unauthorized: authentication required`);
  });

  it("an image the registry lets anyone pull: the server runs it pinned to its digest, its spec hash as desired", async () => {
    const r = await create({ registryPins: true });
    expect(r.services.map((x) => x.image)).toEqual([`${REF}@${DIGEST}`]);
    expect(r.services[0]?.labels[SPEC_HASH_LABEL]).toBe(r.hash);
  });
});
