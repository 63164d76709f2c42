import { randomBytes } from "node:crypto";
import { type SwarmPort, dockerSwarm } from "@levelrail/docker/swarm";
import { serviceLabels } from "@levelrail/spec/naming";
import { type SwarmHarness, startSwarm } from "@levelrail/testkit/swarm";
import { waitFor } from "@levelrail/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DesiredNodeChange } from "./plan";
import { type NodeChangeStore, nodesController } from "./reconcile";

// The node controller (docs/operating/nodes-and-swarm.md) on a real two-engine swarm: a drain asked in the panel moves
// the tasks off the node, labels replace the operator's and keep the product's own, a node changed
// by hand is put back, and a request for a node that left is failed saying so. The store is the
// controller's narrow port in memory (its PostgreSQL form is tested in node-store.int.test.ts).

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
let h: SwarmHarness;
let swarm: SwarmPort;
let workerId: string;
let serviceId: string;

/** The controller's rows, as the web app would write them. */
function memoryStore(): NodeChangeStore & { rows: Map<string, DesiredNodeChange>; ask(nodeId: string, change: Partial<Pick<DesiredNodeChange, "availability" | "labels">>): void } {
  const rows = new Map<string, DesiredNodeChange>();
  return {
    rows,
    ask(nodeId, change) {
      const before = rows.get(nodeId);
      rows.set(nodeId, {
        nodeId,
        availability: change.availability ?? before?.availability ?? null,
        labels: change.labels ?? before?.labels ?? null,
        generation: (before?.generation ?? 0) + 1,
        appliedGeneration: before?.appliedGeneration ?? 0,
        error: null,
      });
    },
    changes: async () => [...rows.values()].map((r) => ({ ...r })),
    async applied(nodeId, generation) {
      const r = rows.get(nodeId);
      if (r?.generation === generation) rows.set(nodeId, { ...r, appliedGeneration: generation, error: null });
    },
    async failed(nodeId, generation, error) {
      const r = rows.get(nodeId);
      if (r?.generation === generation) rows.set(nodeId, { ...r, error });
    },
  };
}

const nodeOf = async (id: string) => (await swarm.listNodes()).find((n) => n.id === id);

beforeAll(async () => {
  h = await startSwarm({ shortName: short, nodes: 2, heartbeatSeconds: 1 });
  swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  const nodes = await swarm.listNodes();
  workerId = nodes.find((n) => n.role === "worker")!.id;
  const image = await h.pushTestImage({ tag: `${short}-test/nodes:v1`, body: "v1\n", healthy: true });
  const owner = { serviceId: `svc-${run}`, appId: `a${run}`, environmentId: "env-1", releaseId: "rel-1" };
  // Two replicas, at most one per node: one runs on the worker until it is drained.
  const id = await swarm.createService({
    name: `${short}-nodes-${run}`,
    image,
    replicas: 2,
    labels: serviceLabels(short, owner, "service"),
    containerLabels: serviceLabels(short, owner, "service"),
    env: {},
    networks: [],
    constraints: [],
    maxReplicasPerNode: 2,
    spreadOver: ["node.id"],
    secrets: [],
    updateOrder: "start-first",
    stopGraceSeconds: 1,
    endpointMode: "dnsrr",
  });
  serviceId = id!;
  await waitFor("a task on each node", async () => {
    const on = new Set((await swarm.listTasks(serviceId)).filter((t) => t.ready).map((t) => t.nodeId));
    return on.size === 2 ? true : undefined;
  }, { timeoutMs: 120_000, intervalMs: 250 });
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

describe("the node controller on a real swarm", () => {
  it("drains a node as asked: its tasks run again on the others, and the request is recorded applied", async () => {
    const store = memoryStore();
    const controller = nodesController({ swarm, store, log: () => {} });
    store.ask(workerId, { availability: "drain" });
    await controller.reconcile("nodes");
    expect((await nodeOf(workerId))?.availability).toBe("drain");
    expect(store.rows.get(workerId)).toMatchObject({ generation: 1, appliedGeneration: 1, error: null });
    await waitFor("no task on the drained node", async () => {
      const live = (await swarm.listTasks(serviceId)).filter((t) => t.desiredState === "running");
      return live.length === 2 && live.every((t) => t.nodeId !== workerId && t.ready) ? true : undefined;
    }, { timeoutMs: 60_000, intervalMs: 250 });

    // Changed back by hand on the engine: the next pass (every resync) puts it as asked again.
    await swarm.updateNode(workerId, { availability: "active" });
    await controller.reconcile("nodes");
    expect((await nodeOf(workerId))?.availability).toBe("drain");

    store.ask(workerId, { availability: "active" });
    await controller.reconcile("nodes");
    expect((await nodeOf(workerId))?.availability).toBe("active");
  });

  it("sets the operator's labels whole and keeps the product's own levelrail.* labels", async () => {
    await swarm.updateNode(workerId, { labels: { "levelrail.database": "pg-1", old: "x" } });
    const store = memoryStore();
    const controller = nodesController({ swarm, store, log: () => {} });
    store.ask(workerId, { labels: { zone: "b", disk: "ssd" } });
    await controller.reconcile("nodes");
    expect((await nodeOf(workerId))?.labels).toEqual({ zone: "b", disk: "ssd", "levelrail.database": "pg-1" });
    expect(store.rows.get(workerId)).toMatchObject({ appliedGeneration: 1, error: null });
  });

  it("fails a request for a node that is not in the swarm, saying so, and still applies the others", async () => {
    const store = memoryStore();
    const controller = nodesController({ swarm, store, log: () => {} });
    store.ask("no-such-node", { availability: "drain" });
    store.ask(workerId, { availability: "pause" });
    await controller.reconcile("nodes");
    expect(store.rows.get("no-such-node")?.error).toMatch(/not in the swarm/);
    expect((await nodeOf(workerId))?.availability).toBe("pause");
    await swarm.updateNode(workerId, { availability: "active" });
  });
});
