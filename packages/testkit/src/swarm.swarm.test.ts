import { randomBytes } from "node:crypto";
import { dockerRuntime } from "@levelrail/docker";
import { dockerNodesReader } from "@levelrail/docker/nodes-read";
import { type SwarmPort, type SwarmServiceSpec, dockerSwarm } from "@levelrail/docker/swarm";
import { overlayMtu, runJoinPreflight } from "@levelrail/docker/swarm/preflight";
import { Labels, networkLabels, networkName, serviceLabels } from "@levelrail/spec/naming";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SwarmHarness, type SwarmNode, startClient, startSwarm, swarmLeftovers } from "./swarm";
import { netnsProber } from "./swarm-probe";
import { waitFor } from "./wait";

// The swarm port on real engines: two dockerd in network namespaces this file makes (the
// harness, `./swarm`), a registry on their bridge. Run by `npm run test:swarm`, as root.

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
const timings: Record<string, number> = {};
const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
  const t0 = Date.now();
  try {
    return await fn();
  } finally {
    timings[what] = Date.now() - t0;
  }
};

let h: SwarmHarness;
let swarm: SwarmPort;
let image: string;
const SECRET_VALUE = `s3cret-${randomBytes(12).toString("hex")}`;
const appA = `a${run}`;
const appB = `b${run}`;

const node = (i: number) => h.nodes[i - 1] as SwarmNode;
const nodeIdOf = async (n: SwarmNode) => {
  const all = await swarm.listNodes();
  const v = all.find((x) => x.address === n.address);
  if (!v) throw new Error(`no node at ${n.address}: ${JSON.stringify(all)}`);
  return v.id;
};

/** The node addresses of a service's running tasks (sorted), once they are exactly `want`. */
async function runningOn(serviceId: string, want: string[]): Promise<string[]> {
  const nodes = await swarm.listNodes();
  return waitFor(`tasks of ${serviceId} running on ${want.join(", ")}`, async () => {
    const ready = (await swarm.listTasks(serviceId)).filter((t) => t.ready);
    const on = ready.map((t) => nodes.find((n) => n.id === t.nodeId)?.address ?? "?").sort();
    return JSON.stringify(on) === JSON.stringify(want) ? on : undefined;
  }, { timeoutMs: 90_000, intervalMs: 250, describe: async () => JSON.stringify((await swarm.listTasks(serviceId)).map((t) => [t.state, t.desiredState, t.nodeId])) });
}

function spec(app: string, name: string, over: Partial<SwarmServiceSpec> = {}): SwarmServiceSpec {
  const owner = { serviceId: `svc-${name}`, appId: app, environmentId: "env-1", releaseId: "rel-1" };
  return {
    name: `${short}-${name}-${run}`,
    image,
    replicas: 1,
    labels: serviceLabels(short, owner, "service"),
    containerLabels: serviceLabels(short, owner, "service"),
    env: {},
    networks: [{ target: networkName(short, app), aliases: [name] }],
    constraints: [],
    secrets: [],
    updateOrder: "start-first",
    // busybox httpd as PID 1 ignores SIGTERM: without this a drain waits the engine's 10 s for each task.
    stopGraceSeconds: 1,
    // DNS round robin: the harness's engines run with --iptables=false, and a VIP's IPVS needs their rules
    // (with "vip", `web` resolved to its VIP and wget answered "No route to host").
    endpointMode: "dnsrr",
    ...over,
  };
}

beforeAll(async () => {
  h = await timed("harness start (2 engines, registry, swarm init)", () => startSwarm({ shortName: short, nodes: 2, join: false }));
  swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  image = await timed("build + push test image", () => h.pushTestImage({ tag: `${short}-test/web:v1`, body: "served\n", healthy: true }));
}, 180_000);

afterAll(async () => {
  console.log("swarm timings (ms):", JSON.stringify({ ...h?.timings, ...timings }, null, 1));
  await h?.stop();
  expect(await swarmLeftovers({ shortName: short })).toEqual([]);
}, 120_000);

describe("a swarm on real engines", () => {
  it("a node joins only after the preflight; a blocked port 4789 is named", async () => {
    const manager = { name: "node1", address: node(1).address, role: "manager" as const, mtu: await node(1).mtu() };
    const candidate = { name: "node2", address: node(2).address, mtu: await node(2).mtu() };
    const prober = netnsProber(h.nodes);

    const ok = await timed("preflight", () => runJoinPreflight(candidate, [manager], prober));
    expect(ok.failed).toEqual([]);
    expect(ok.ok).toBe(true);
    console.log(`preflight node2 → node1: ${ok.passed.length} passed, ${ok.unverified.length} unverified (${ok.unverified.map((u) => u.id).join("; ")})`);

    await node(2).exec(["iptables", "-I", "INPUT", "-p", "udp", "--dport", "4789", "-j", "DROP"]);
    try {
      const blocked = await timed("preflight (4789 blocked)", () => runJoinPreflight(candidate, [manager], prober));
      expect(blocked.ok).toBe(false);
      expect(blocked.failed.map((f) => f.check)).toEqual(["port 4789/udp"]);
      expect(blocked.failed[0]?.fix).toContain("allow UDP 4789 from 10.231.0.11 to 10.231.0.12");
    } finally {
      await node(2).exec(["iptables", "-D", "INPUT", "-p", "udp", "--dport", "4789", "-j", "DROP"]);
    }

    // Before it joins, node 2 is one engine: GET /api/v1/nodes's reader answers it as its one node.
    const alone = await dockerNodesReader({ dockerHost: node(2).dockerHost }).nodes();
    expect(alone).toMatchObject({ engine: "single", nodes: [{ role: "manager", state: "ready", availability: "active" }] });
    expect(alone.nodes[0]?.resources.cpus).toBeGreaterThan(0);

    await timed("join node 2", () => h.join(2));
    const listed = await dockerNodesReader({ dockerHost: h.manager.dockerHost }).nodes();
    expect(listed.engine).toBe("swarm");
    expect(listed.nodes.map((n) => [n.role, n.leader, n.address])).toEqual([["manager", true, "10.231.0.11"], ["worker", false, "10.231.0.12"]]);
    expect(await swarm.swarmInfo()).toMatchObject({ kind: "swarm-manager" });
    const nodes = await swarm.listNodes();
    expect(nodes.map((n) => [n.role, n.state, n.availability, n.address])).toEqual([
      ["manager", "ready", "active", "10.231.0.11"],
      ["worker", "ready", "active", "10.231.0.12"],
    ]);
    expect(nodes[0]?.resources.cpus).toBeGreaterThan(0);
    expect(nodes[0]?.resources.memoryBytes).toBeGreaterThan(0);
  });

  it("2 replicas placed by node label spread over both nodes, on the app's own overlay, serve HTTP across nodes; a secret shows only in the task's file", async () => {
    for (const n of [1, 2]) await swarm.updateNode(await nodeIdOf(node(n)), { labels: { [`${short}.pool`]: "web", [`${short}.zone`]: `z${n}` } });
    const mtu = overlayMtu([await node(1).mtu(), await node(2).mtu()]);
    expect(mtu).toBe(1450);
    expect(await swarm.createOverlayNetwork({ name: networkName(short, appA), labels: networkLabels(short, appA), subnet: "10.232.200.0/26", gateway: "10.232.200.1", encrypted: false, mtu })).toBe(true);
    expect(await swarm.createOverlayNetwork({ name: networkName(short, appA), labels: networkLabels(short, appA), subnet: null, gateway: null, encrypted: false, mtu })).toBe(false);
    // The manager's local view of a swarm network may show its IPAM a moment after the create answered.
    const net = await waitFor("the overlay's subnet", async () => {
      const n = await dockerRuntime({ dockerHost: h.manager.dockerHost }).inspectNetwork(networkName(short, appA));
      return n?.subnets.length ? n : undefined;
    }, { timeoutMs: 10_000 });
    expect(net.subnets).toEqual(["10.232.200.0/26"]);
    const raw = (await h.manager.docker.getNetwork(net.id).inspect()) as { Options?: Record<string, string>; Attachable?: boolean; Labels?: Record<string, string> };
    expect(raw).toMatchObject({ Attachable: true, Options: { "com.docker.network.driver.mtu": "1450" }, Labels: networkLabels(short, appA) });

    const secretName = `${short}-secret-${run}`;
    const secretId = await swarm.createSecret(secretName, { [Labels.managed]: "true", [Labels.instance]: short }, SECRET_VALUE);
    const id = await timed("create service (2 replicas) until both run", async () => {
      const sid = await swarm.createService(
        spec(appA, "web", {
          replicas: 2,
          constraints: [`node.labels.${short}.pool==web`],
          spreadOver: [`node.labels.${short}.zone`],
          secrets: [{ secretId, secretName, file: "db_password" }],
        }),
      );
      if (!sid) throw new Error("name taken");
      await runningOn(sid, ["10.231.0.11", "10.231.0.12"]);
      return sid;
    });
    expect(await swarm.createService(spec(appA, "web"))).toBeNull();

    // Across nodes: a client on node 1 reaches each task by its address (one of them on node 2) and the service by its name.
    const c = await startClient(node(1), { network: networkName(short, appA), image, shortName: short });
    const tasks = (await swarm.listTasks(id)).filter((t) => t.ready);
    const netId = net.id;
    for (const t of tasks) {
      const addr = t.addresses[netId];
      expect(addr, JSON.stringify(t)).toMatch(/^10\.232\.200\./);
      const started = Date.now();
      expect(await c.get(`http://${addr}:8080/`)).toEqual({ exitCode: 0, out: "served\n" });
      timings[`GET task on ${t.nodeId === (await nodeIdOf(node(1))) ? "node 1" : "node 2"}`] = Date.now() - started;
    }
    expect(await c.get("http://web:8080/")).toEqual({ exitCode: 0, out: "served\n" });

    // The secret: its value in the task's file, and nowhere in what the engine shows of the service, its tasks or the secret.
    for (const task of tasks) {
      // A task's container lives on its node's engine.
      const onNode = dockerRuntime({ dockerHost: (await nodeIdOf(node(1))) === task.nodeId ? node(1).dockerHost : node(2).dockerHost });
      let file = "";
      await onNode.exec(task.containerId ?? "", ["/bin/busybox", "cat", "/run/secrets/db_password"], (t) => (file += t));
      expect(file).toBe(SECRET_VALUE);
    }
    const shown = JSON.stringify([
      await h.manager.docker.getService(id).inspect(),
      await h.manager.docker.listTasks({ filters: JSON.stringify({ service: [id] }) }),
      await h.manager.docker.getSecret(secretId).inspect(),
    ]);
    expect(shown).toContain(secretName);
    expect(shown).not.toContain(SECRET_VALUE);
    expect(shown).not.toContain(Buffer.from(SECRET_VALUE).toString("base64"));
    expect((await swarm.inspectService(id))?.secrets).toEqual([{ secretId, secretName, file: "db_password" }]);
  });

  it("draining a node moves its tasks to the other", async () => {
    const [svc] = await swarm.listServices([`${Labels.app}=${appA}`]);
    if (!svc) throw new Error("no service");
    const node2 = await nodeIdOf(node(2));
    try {
      await timed("drain node 2 until both tasks run on node 1", async () => {
        await swarm.updateNode(node2, { availability: "drain" });
        // Waits until the running tasks are exactly these: right after the drain, node 2's still run.
        await runningOn(svc.id, ["10.231.0.11", "10.231.0.11"]);
      });
      expect((await swarm.listNodes()).find((n) => n.id === node2)?.availability).toBe("drain");
    } finally {
      await swarm.updateNode(node2, { availability: "active" });
    }
    expect((await swarm.listNodes()).find((n) => n.id === node2)).toMatchObject({ availability: "active", labels: { [`${short}.zone`]: "z2" } });
  });

  it("two apps' overlay networks cannot reach each other", async () => {
    expect(await swarm.createOverlayNetwork({ name: networkName(short, appB), labels: networkLabels(short, appB), subnet: "10.232.200.64/26", gateway: "10.232.200.65", encrypted: false, mtu: 1450 })).toBe(true);
    const other = await swarm.createService(spec(appB, "api"));
    if (!other) throw new Error("name taken");
    await waitFor("the other app's task", async () => ((await swarm.listTasks(other)).some((t) => t.ready) ? true : undefined), { timeoutMs: 90_000, intervalMs: 250 });
    const [task] = (await swarm.listTasks(other)).filter((t) => t.ready);
    const addrB = Object.values(task?.addresses ?? {}).find((a) => a.startsWith("10.232.200."));
    expect(addrB).toMatch(/^10\.232\.200\.(6[5-9]|[7-9]\d|1[01]\d|12[0-6])$/);

    const fromB = await startClient(node(1), { network: networkName(short, appB), image, shortName: short });
    expect(await fromB.get(`http://${addrB}:8080/`)).toEqual({ exitCode: 0, out: "served\n" });
    const fromA = await startClient(node(2), { network: networkName(short, appA), image, shortName: short });
    const started = Date.now();
    expect((await fromA.get(`http://${addrB}:8080/`)).exitCode).not.toBe(0);
    expect((await fromA.get("http://api:8080/")).exitCode).not.toBe(0);
    timings["isolation probes (expected to fail)"] = Date.now() - started;
  });
});
