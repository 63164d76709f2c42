import { describe, expect, it } from "vitest";
import { FakeSwarm, satisfies } from "./fake";
import type { NodeView } from "./nodes";
import type { SwarmServiceSpec } from "./port";

const spec = (over: Partial<SwarmServiceSpec> = {}): SwarmServiceSpec => ({
  name: "lr-web-1", image: "reg/web:v1", replicas: 2, labels: { "levelrail.managed": "true", "levelrail.app": "a" }, containerLabels: {},
  env: {}, networks: [], constraints: [], secrets: [], updateOrder: "start-first", endpointMode: "dnsrr", ...over,
});

/** Where the running tasks are, by node id (sorted). */
const placement = async (f: FakeSwarm, id: string) => (await f.listTasks(id)).filter((t) => t.ready).map((t) => t.nodeId).sort();

function threeNodes() {
  const f = new FakeSwarm();
  const m = f.addNode({ id: "m", address: "10.0.0.1", labels: { zone: "a" } });
  const w1 = f.addNode({ id: "w1", address: "10.0.0.2", role: "worker", labels: { zone: "a", pool: "web" } });
  const w2 = f.addNode({ id: "w2", address: "10.0.0.3", role: "worker", labels: { zone: "b", pool: "web" } });
  return { f, m, w1, w2 };
}

describe("satisfies", () => {
  const node = { id: "n1", hostname: "h1", role: "worker", labels: { zone: "a" } } as unknown as NodeView;
  it.each([
    ["node.labels.zone==a", true],
    ["node.labels.zone!=a", false],
    ["node.labels.missing==a", false],
    ["node.labels.missing!=a", true],
    ["node.role==worker", true],
    ["node.role!=manager", true],
    ["node.id==n1", true],
    ["node.hostname==h2", false],
    [" node.labels.zone == a ", true],
  ] as const)("%s", (c, want) => {
    expect(satisfies(node, c)).toBe(want);
  });
  it("refuses what it cannot read", () => {
    expect(() => satisfies(node, "zone=a")).toThrow("invalid constraint");
    expect(() => satisfies(node, "engine.labels.x==1")).toThrow("unsupported");
  });
});

describe("FakeSwarm", () => {
  it("places replicas by constraint, fewest tasks first, and leaves one that fits nowhere pending", async () => {
    const { f } = threeNodes();
    const id = (await f.createService(spec({ replicas: 3, constraints: ["node.labels.pool==web"], maxReplicasPerNode: 1 })))!;
    expect(await placement(f, id)).toEqual(["w1", "w2"]);
    expect((await f.listTasks(id)).find((t) => !t.ready)).toMatchObject({ state: "pending", nodeId: null, message: "no suitable node" });
    expect(await f.createService(spec())).toBeNull();
  });

  it("a drained or lost node's tasks run again on the others; labels changed away move them too", async () => {
    const { f, w1, w2 } = threeNodes();
    const id = (await f.createService(spec({ constraints: ["node.role==worker"] })))!;
    expect(await placement(f, id)).toEqual(["w1", "w2"]);
    await f.updateNode(w2, { availability: "drain" });
    expect(await placement(f, id)).toEqual(["w1", "w1"]);
    await f.updateNode(w2, { availability: "active" });
    f.setNodeState(w1, "down");
    expect(await placement(f, id)).toEqual(["w2", "w2"]);
    expect((await f.listNodes()).find((n) => n.id === w2)?.availability).toBe("active");
    await f.updateNode(w2, { labels: { zone: "c" } });
    expect((await f.listNodes()).find((n) => n.id === w2)?.labels).toEqual({ zone: "c" });
  });

  it("an update names the version it read; a changed spec replaces the tasks, with the new image", async () => {
    const { f } = threeNodes();
    const id = (await f.createService(spec()))!;
    const v = (await f.inspectService("lr-web-1"))!;
    await expect(f.updateService(id, v.version + 1, spec())).rejects.toThrow("out of sequence");
    await f.updateService(id, v.version, spec({ image: "reg/web:v2" }));
    const tasks = await f.listTasks(id);
    expect(tasks.filter((t) => t.ready).map((t) => t.image)).toEqual(["reg/web:v2", "reg/web:v2"]);
    expect(tasks.filter((t) => t.desiredState === "shutdown")).toHaveLength(2);
    expect((await f.inspectService(id))?.version).toBe(v.version + 1);
  });

  it("networks and secrets: a taken name, references that must exist, a secret in use stays", async () => {
    const { f } = threeNodes();
    const net = { name: "lr-app-a", labels: { "levelrail.app": "a" }, subnet: null, gateway: null, encrypted: true, mtu: 1450 };
    expect(await f.createOverlayNetwork(net)).toBe(true);
    expect(await f.createOverlayNetwork(net)).toBe(false);
    const secretId = await f.createSecret("lr-secret-1", { "levelrail.managed": "true" }, "v");
    await expect(f.createSecret("lr-secret-1", {}, "w")).rejects.toMatchObject({ statusCode: 409 });
    await expect(f.createService(spec({ networks: [{ target: "nope", aliases: [] }] }))).rejects.toThrow("network nope not found");
    const id = (await f.createService(spec({ networks: [{ target: "lr-app-a", aliases: ["web"] }], secrets: [{ secretId, secretName: "lr-secret-1", file: "pw" }] })))!;
    expect((await f.inspectService(id))?.secrets).toEqual([{ secretId, secretName: "lr-secret-1", file: "pw" }]);
    await expect(f.removeSecret(secretId)).rejects.toThrow("in use");
    expect(await f.listServices(["levelrail.app=a"])).toHaveLength(1);
    expect(await f.listServices(["levelrail.app=b"])).toHaveLength(0);
    await f.removeService(id);
    await f.removeSecret(secretId);
    expect(await f.listSecrets([])).toEqual([]);
    expect(await f.listTasks(id)).toEqual([]);
  });
});
