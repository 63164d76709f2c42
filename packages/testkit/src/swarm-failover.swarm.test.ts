import { randomBytes } from "node:crypto";
import { dockerRuntime } from "@levelrail/docker";
import { type SwarmPort, type SwarmServiceSpec, dockerSwarm } from "@levelrail/docker/swarm";
import { Labels, networkLabels, networkName, serviceLabels } from "@levelrail/spec/naming";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENCRYPTED_OVERLAY_OPTIONS, type SwarmHarness, type SwarmNode, missingKernelOptions, startClient, startSwarm } from "./swarm";
import { waitFor } from "./wait";

// Three engines: an overlay across all of them (and an encrypted one where the kernel has IPsec), a
// rolling update under load, and a lost node whose task runs again on the others. Run by
// `npm run test:swarm`, as root.

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
const app = `f${run}`;
const timings: Record<string, number> = {};
let h: SwarmHarness;
let swarm: SwarmPort;
let v1: string;
let v2: string;
let serviceId: string;

const node = (i: number) => h.nodes[i - 1] as SwarmNode;
const noIpsec = missingKernelOptions(ENCRYPTED_OVERLAY_OPTIONS);

/** GETs each of `urls` once from a client container on `network` on node `n`. */
async function getFrom(n: SwarmNode, network: string, urls: string[]): Promise<{ exitCode: number; out: string }[]> {
  const c = await startClient(n, { network, image: v1, shortName: short });
  try {
    const answers: { exitCode: number; out: string }[] = [];
    for (const url of urls) answers.push(await c.get(url, 5));
    return answers;
  } finally {
    await c.remove();
  }
}

const addressOf = async (nodeId: string | null) => (await swarm.listNodes()).find((n) => n.id === nodeId)?.address ?? "?";

async function running(want: number, image?: string): Promise<string[]> {
  return waitFor(`${want} running tasks`, async () => {
    const ready = (await swarm.listTasks(serviceId)).filter((t) => t.ready);
    const svc = await swarm.inspectService(serviceId);
    if (ready.length !== want || (image && svc?.image !== image)) return undefined;
    return Promise.all(ready.map((t) => addressOf(t.nodeId))).then((a) => a.sort());
  }, { timeoutMs: 120_000, intervalMs: 250, describe: async () => JSON.stringify((await swarm.listTasks(serviceId)).map((t) => [t.state, t.desiredState, t.nodeId, t.message, t.error])) });
}

function spec(image: string): SwarmServiceSpec {
  const owner = { serviceId: `svc-${run}`, appId: app, environmentId: "env-1", releaseId: `rel-${image.endsWith("v2") ? 2 : 1}` };
  return {
    name: `${short}-web-${run}`,
    image,
    replicas: 3,
    labels: serviceLabels(short, owner, "service"),
    containerLabels: serviceLabels(short, owner, "service"),
    env: {},
    networks: [{ target: networkName(short, app), aliases: ["web"] }],
    constraints: [],
    spreadOver: [`node.labels.${short}.zone`],
    secrets: [],
    updateOrder: "start-first",
    stopGraceSeconds: 1,
    endpointMode: "dnsrr",
    // The registry wants a login: sent with the create and update, the engine hands it to the nodes that pull.
    registryAuth: h.registryAuth,
  };
}

beforeAll(async () => {
  const t0 = Date.now();
  h = await startSwarm({ shortName: short, nodes: 3, heartbeatSeconds: 1, registryLogin: true, iptables: process.env.LRSW_IPTABLES === "1" });
  swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  v1 = await h.pushTestImage({ tag: `${short}-test/web:v1`, body: "v1\n", healthy: true });
  v2 = await h.pushTestImage({ tag: `${short}-test/web:v2`, body: "v2\n", healthy: true });
  for (const n of await swarm.listNodes()) await swarm.updateNode(n.id, { labels: { [`${short}.zone`]: n.address } });
  timings["3-node swarm with two images"] = Date.now() - t0;
}, 180_000);

afterAll(async () => {
  console.log("swarm failover timings (ms):", JSON.stringify({ ...h?.timings, ...timings }, null, 1));
  await h?.stop();
}, 120_000);

describe("three engines", () => {
  it("without the registry's login the workers cannot pull (the manager built the image itself)", async () => {
    const sid = await swarm.createService({ ...spec(v1), name: `${short}-nologin-${run}`, registryAuth: null, networks: [], maxReplicasPerNode: 1 });
    if (!sid) throw new Error("name taken");
    try {
      const errors = await waitFor("the workers' pulls to fail", async () => {
        const tasks = await swarm.listTasks(sid);
        const failed = tasks.filter((t) => t.state === "rejected" || t.state === "failed");
        const nodes = new Set(await Promise.all(failed.map((t) => addressOf(t.nodeId))));
        return nodes.has("10.231.0.12") && nodes.has("10.231.0.13") ? failed.map((t) => t.error) : undefined;
      }, { timeoutMs: 60_000, intervalMs: 250, describe: async () => JSON.stringify((await swarm.listTasks(sid)).map((t) => [t.state, t.error])) });
      expect(errors.join("\n")).toMatch(/no basic auth credentials|unauthorized|No such image/i);
    } finally {
      await swarm.removeService(sid);
    }
  });

  it("3 replicas on the app's overlay, one per node, each answering from node 1", async () => {
    expect(await swarm.createOverlayNetwork({ name: networkName(short, app), labels: networkLabels(short, app), subnet: "10.232.201.0/26", gateway: "10.232.201.1", encrypted: false, mtu: 1450 })).toBe(true);
    const t0 = Date.now();
    const id = await swarm.createService(spec(v1));
    if (!id) throw new Error("name taken");
    serviceId = id;
    expect(await running(3)).toEqual(["10.231.0.11", "10.231.0.12", "10.231.0.13"]);
    timings["3 replicas running"] = Date.now() - t0;
    const netId = (await dockerRuntime({ dockerHost: node(1).dockerHost }).inspectNetwork(networkName(short, app)))?.id ?? "";
    const tasks = (await swarm.listTasks(serviceId)).filter((x) => x.ready);
    const answers = await getFrom(node(1), networkName(short, app), tasks.map((t) => `http://${t.addresses[netId]}:8080/`));
    expect(answers).toEqual(tasks.map(() => ({ exitCode: 0, out: "v1\n" })));
  });

  // This machine's kernel (6.18, no CONFIG_INET_ESP, no CONFIG_CRYPTO_GCM) has no IPsec: an encrypted
  // overlay is created, but no packet crosses between nodes (wget timed out, exit 143), with or
  // without the engines' iptables rules.
  it.skipIf(noIpsec.length > 0)(`an encrypted overlay carries HTTP between the nodes${noIpsec.length ? ` (skipped: the kernel lacks ${noIpsec.join(", ")})` : ""}`, async () => {
    const enc = `e${run}`;
    expect(await swarm.createOverlayNetwork({ name: networkName(short, enc), labels: networkLabels(short, enc), subnet: "10.232.201.64/26", gateway: "10.232.201.65", encrypted: true, mtu: 1450 })).toBe(true);
    const raw = (await h.manager.docker.getNetwork(networkName(short, enc)).inspect()) as { Options?: Record<string, string> };
    expect(raw.Options).toHaveProperty("encrypted");
    const sid = await swarm.createService({ ...spec(v1), name: `${short}-enc-${run}`, networks: [{ target: networkName(short, enc), aliases: ["enc"] }] });
    if (!sid) throw new Error("name taken");
    const tasks = await waitFor("3 encrypted tasks", async () => {
      const ready = (await swarm.listTasks(sid)).filter((t) => t.ready);
      return ready.length === 3 ? ready : undefined;
    }, { timeoutMs: 90_000, intervalMs: 250 });
    const netId = String((raw as { Id?: string }).Id);
    const answers = await getFrom(node(1), networkName(short, enc), tasks.map((t) => `http://${t.addresses[netId]}:8080/`));
    await swarm.removeService(sid);
    expect(answers).toEqual(tasks.map(() => ({ exitCode: 0, out: "v1\n" })));
  });

  it("a start-first rolling update under load: every request answered, by v1 then v2", async () => {
    const rt = dockerRuntime({ dockerHost: node(1).dockerHost });
    // The load: a loop in a container on the app's network, one GET of the service's name after another.
    const loop = "while true; do /bin/busybox timeout 2 /bin/busybox wget -q -O- http://web:8080/ || echo fail; /bin/busybox usleep 50000; done";
    const load = await rt.createContainer({
      name: `${short}-load-${run}`,
      Image: v1,
      Cmd: ["/bin/sh", "-c", loop],
      Labels: { [Labels.managed]: "true", [Labels.instance]: short, [Labels.role]: "test-client" },
      HostConfig: { NetworkMode: networkName(short, app) },
    });
    if (!load) throw new Error("load exists");
    await rt.startContainer(load);
    await waitFor("the load to get answers", async () => ((await rt.containerLogs(load, 50)).includes("v1") ? true : undefined), { timeoutMs: 20_000 });
    const svc = await swarm.inspectService(serviceId);
    if (!svc) throw new Error("no service");
    const t0 = Date.now();
    await swarm.updateService(serviceId, svc.version, spec(v2));
    await running(3, v2);
    await waitFor("the rollout to complete", async () => ((await swarm.inspectService(serviceId))?.updateState === "completed" ? true : undefined), { timeoutMs: 120_000, intervalMs: 250 });
    timings["rolling update of 3 replicas"] = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 1_000));
    await rt.stopContainer(load, 1);
    const lines = (await rt.containerLogs(load, 100_000)).split("\n").map((l) => l.trim()).filter(Boolean);
    const counts = { v1: lines.filter((l) => l === "v1").length, v2: lines.filter((l) => l === "v2").length, failed: lines.filter((l) => l !== "v1" && l !== "v2").length };
    console.log("rolling update under load:", JSON.stringify(counts));
    expect(counts.v1).toBeGreaterThan(0);
    expect(counts.v2).toBeGreaterThan(0);
    expect(lines.at(-1)).toBe("v2");
    expect(counts.failed).toBe(0);
  });

  it("a lost node's task runs again on the others", async () => {
    // The worker holding a task (spread is a preference, so which one varies).
    const before = await running(3, v2);
    const lost = h.nodes.find((n) => n !== h.manager && before.includes(n.address));
    if (!lost) throw new Error(`no worker holds a task: ${before.join(", ")}`);
    const t0 = Date.now();
    await h.partition(lost.index);
    try {
      await waitFor(`node ${lost.index} down`, async () => ((await swarm.listNodes()).find((n) => n.address === lost.address)?.state === "down" ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
      timings["lost node seen down"] = Date.now() - t0;
      const after = await running(3, v2);
      expect(after.filter((a) => a === lost.address)).toEqual([]);
      timings["node loss recovery (3 running on the others)"] = Date.now() - t0;
    } finally {
      await h.heal(lost.index);
    }
  });
});
