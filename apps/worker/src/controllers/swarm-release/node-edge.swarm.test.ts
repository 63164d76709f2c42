import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { dockerRuntime } from "@levelrail/docker";
import { type SwarmPort, dockerSwarm } from "@levelrail/docker/swarm";
import { edgeCaddyName, edgeName } from "@levelrail/docker/swarm/edge";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE, EDGE_ACKS_FILE, EDGE_CADDY_FILE } from "@levelrail/spec/dataplane";
import { networkName } from "@levelrail/spec/naming";
import { type SwarmHarness, type SwarmNode, startSwarm } from "@levelrail/testkit/swarm";
import { whileLoaded } from "@levelrail/testkit/load";
import { waitFor } from "@levelrail/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEdgeAcks } from "../../dataplane/edge-acks";
import { swarmSampling } from "../../metrics-sampler/swarm-targets";
import { swarmMode } from "../../swarm-mode";
import { StatePublisher } from "../../dataplane/publisher";
import { type TestEdge, startTestEdge, testReleaseDeps } from "./edge-testbed";
import { passUntilIdle } from "./index";
import type { SwarmReleaseDeps } from "./reconcile";
import { TestReleases } from "./testing";
import { dockerSwarmProbe } from "../../../../../scripts/doctor/probes";
import { swarmCheck } from "../../../../../scripts/doctor/swarm";

// The data plane on every node (docs/operating/nodes-and-swarm.md#the-data-plane-on-every-node, issue 26), on real engines: `npm start`'s edge on the
// manager with the node agents (scripts/lib/node-agent.mjs: a global swarm service of an image
// pushed to the swarm's registry). The worker node's agent runs an edge of its own on its engine
// (holder, Caddy, both mesh DNS replicas, standalone containers) and keeps it a copy of the
// manager's, read over the control overlay; requests from outside the swarm to the worker node's
// published port reach the app's tasks, a cutover fails nothing there, and the worker node keeps
// serving while the manager's engine restarts. Run by `npm run test:swarm`, as root.

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
const appId = `n${run}`;
const serviceId = `svc-${run}`;
const DOMAIN = `node-${run}.test`;
const HTTP_PORT = 18080;
const MESH_PORT = 15353;
const pool = { pool: "10.236.0.0/16", bits: 26 };
const base = `/tmp/${short}-nodeedge-${run}`;
const dataDir = join(base, "data");

let h: SwarmHarness;
let swarm: SwarmPort;
let worker: SwarmNode;
let images: { v1: string; v2: string };
let deps: SwarmReleaseDeps;
let edge: TestEdge;
const publisher = new StatePublisher(join(dataDir, DATAPLANE_DIR, DATAPLANE_STATE_FILE));
let rels: TestReleases;
const input = (releaseId: string, image: string) => rels.input(releaseId, image);
const onWorker = (timeoutMs = 3_000) => edge.getOn(worker, DOMAIN, timeoutMs);

beforeAll(async () => {
  h = await startSwarm({ shortName: short, nodes: 2, heartbeatSeconds: 1 });
  worker = h.nodes[1]!;
  rels = new TestReleases({ shortName: short, serviceId, appId, appName: "shop", registryAuth: h.registryAuth });
  swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  images = {
    v1: await h.pushTestImage({ tag: `${short}-test/nodeedge:v1`, body: "v1\n", healthy: true }),
    v2: await h.pushTestImage({ tag: `${short}-test/nodeedge:v2`, body: "v2\n", healthy: true }),
  };
  await publisher.setDomains({ [DOMAIN]: serviceId });
  edge = await startTestEdge(h, { shortName: short, dataDir, httpPort: HTTP_PORT, meshPort: MESH_PORT, nodeAgents: true });
  // As the worker wires it: old tasks go only once the worker node's edge has the switch.
  deps = testReleaseDeps(h, { shortName: short, pool, dataDir, status: rels, active: publisher, drainMs: 2_000 });
}, 240_000);

afterAll(async () => {
  edge?.close();
  await h?.stop();
  rmSync(base, { recursive: true, force: true });
});

/** The highest host address of an IPv4 subnet (`a.b.c.d/n`): free on a small app overlay. */
const lastUsable = (cidr: string) => {
  const [ip, bits] = cidr.split("/");
  const n = ip!.split(".").reduce((a, o) => a * 256 + Number(o), 0) + 2 ** (32 - Number(bits)) - 2;
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
};

/** Whether every node edge that acknowledged has the publisher's current generation (`freshMs`: and read the feed that lately; at least one edge). */
const edgesInStep = (freshMs?: number) => {
  const nodes = Object.values(readEdgeAcks(join(dataDir, DATAPLANE_DIR, EDGE_ACKS_FILE))?.nodes ?? {});
  if (freshMs !== undefined && nodes.length === 0) return false;
  return nodes.every((n) => n.generation === publisher.current().generation && (freshMs === undefined || Date.now() - n.seenAt < freshMs));
};

/** The worker node's mesh DNS replicas' and edge Caddy's last log lines, info left out unless it names a 502 or an error. */
async function printEdgeLogs(tail: number, keep: number): Promise<void> {
  for (const c of await worker.docker.listContainers({ all: true, filters: JSON.stringify({ label: [`levelrail.instance=${short}`] }) })) {
    if (!/mesh-dns|edge-caddy/.test(c.Names[0]!)) continue;
    const logs = (await worker.docker.getContainer(c.Id).logs({ stdout: true, stderr: true, tail, timestamps: true })).toString("utf8");
    console.log(`--- ${c.Names[0]}\n${logs.split("\n").filter((l) => !/"level":"info"/.test(l) || /502|error/i.test(l)).slice(-keep).join("\n")}`);
  }
}

const agentLogs = async () => {
  const [svc] = await h.manager.docker.listServices({ filters: JSON.stringify({ name: [`${short}-node-agent`] }) });
  if (!svc) return "no node agent service";
  try {
    return String(await (h.manager.docker.getService(svc.ID) as unknown as { logs(o: object): Promise<Buffer> }).logs({ stdout: true, stderr: true, tail: 30 }));
  } catch (err) {
    return String(err);
  }
};

describe("the data plane on every node", () => {
  it("the worker node's agent runs an edge of its own, and its published port serves the app's domain", async () => {
    const t0 = Date.now();
    await passUntilIdle(deps, () => input("rel1", images.v1));
    expect(rels.releases.get("rel1")).toMatchObject({ outcome: "succeeded" });
    const answered = await waitFor("the domain through the worker node's own Caddy", async () => {
      const r = await onWorker().catch(() => null);
      return r?.status === 200 ? r : undefined;
    }, { timeoutMs: 90_000, intervalMs: 250, describe: agentLogs });
    expect(answered.body).toBe("v1\n");
    console.log(`the worker node's edge served the domain ${Date.now() - t0} ms after the release began`);
    // Its edge: standalone containers on the worker's own engine, the holder joined to the app's overlay.
    const mine = await worker.docker.listContainers({ filters: JSON.stringify({ label: [`levelrail.instance=${short}`] }) });
    const names = mine.map((c) => c.Names[0]!.slice(1)).filter((n) => !n.startsWith(`${short}-node-agent.`)).sort();
    expect(names).toEqual(expect.arrayContaining([edgeName(short), edgeCaddyName(short)]));
    expect(names.filter((n) => n.startsWith(`${short}-mesh-dns-`))).toHaveLength(2);
    const holder = await worker.docker.getContainer(edgeName(short)).inspect();
    expect(Object.keys(holder.NetworkSettings.Networks)).toContain(networkName(short, appId));
    for (let i = 0; i < 10; i++) expect(await onWorker()).toEqual({ status: 200, body: "v1\n" });
    // Metrics per task: the worker node's agent sends readings of its tasks; with the manager's own,
    // the sampler's targets are every task of the active release, each read on its node.
    const mode = await swarmMode(h.manager.docker, dockerRuntime({ dockerHost: h.manager.dockerHost }), swarm, short, join(dataDir, DATAPLANE_DIR, EDGE_CADDY_FILE));
    const sampling = swarmSampling({
      active: async () => [{ serviceId, service: "web", environmentId: "e", environment: "prod", container: publisher.current().services[serviceId]!.container }],
      tasksOf: (id) => publisher.current().services[id]?.tasks ?? [],
      readings: mode!.swarmReleases.taskReadings!,
    });
    const targets = await waitFor("a reading of every task (the worker node's from its agent)", async () => {
      const t = await sampling.targets();
      return t.length === 2 ? t : undefined;
    }, { timeoutMs: 30_000, intervalMs: 500, describe: agentLogs });
    for (const t of targets) expect(await sampling.runtime.containerStats(t.containerId)).toMatchObject({ memoryBytes: expect.any(Number) });
    expect(new Set(targets.map((t) => t.container)).size).toBe(2);
    // `levelrail doctor` sees the agent on the other node.
    const facts = await dockerSwarmProbe(h.manager.docker, short, join(dataDir, DATAPLANE_DIR)).facts();
    expect(facts.agents?.silent).toEqual([]);
    expect(swarmCheck(facts, { holder: edgeName(short), caddy: edgeCaddyName(short) })).toMatchObject({ status: "ok", message: expect.stringContaining("every other node runs its own edge") });
  }, 180_000);

  it("blue-green through the worker node's Caddy: nothing fails while the new release replaces the old", async () => {
    const { result: steps, sent, failures, bodies } = await whileLoaded(
      async () => {
        const r = await onWorker();
        return r.status === 200 ? { ok: true, body: r.body } : { ok: false, detail: `${r.status} ${r.body.slice(0, 120)}` };
      },
      () => passUntilIdle(deps, () => input("rel2", images.v2)),
    );
    expect(steps).toEqual(expect.arrayContaining(["create", "switch", "done"]));
    console.log(`swarm cutover through the worker node's Caddy: ${failures.length} failed of ${sent}`);
    // The worker node's agent said it applied the switch (the old tasks waited for it).
    const acks = readEdgeAcks(join(dataDir, DATAPLANE_DIR, EDGE_ACKS_FILE));
    expect(Object.values(acks?.nodes ?? {}).map((n) => n.generation)).toEqual([publisher.current().generation]);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(20);
    expect(bodies).toEqual(new Set(["v1\n", "v2\n"]));
  }, 180_000);

  it("an agent upgrade (a new version pushed): the worker node keeps its namespace and its Caddy, swaps its mesh DNS replicas, and serves throughout", async () => {
    process.env.DOCKER_HOST = h.manager.dockerHost; // the launcher's helpers drive the manager's engine
    const { ensureNodeAgents } = await import("../../../../../scripts/lib/node-agent.mjs");
    const kept = async () => Promise.all([edgeName(short), edgeCaddyName(short)].map(async (n) => (await worker.docker.getContainer(n).inspect()).Id));
    const before = await kept();
    const version = `upgrade${run}`;
    const replicas = async () => (await worker.docker.listContainers({ all: true, filters: JSON.stringify({ label: [`levelrail.instance=${short}`, "levelrail.role=mesh-dns"] }) })).map((c) => c.Names[0]!.slice(1));
    // A task the state still names but that is gone (as after a node's engine restarted, before the
    // worker publishes again): the old replicas left it out of their answers; the new ones must too,
    // from their first answer (they probe before they serve).
    const entry = publisher.current().services[serviceId]!;
    const ipam = (await h.manager.docker.getNetwork(networkName(short, appId)).inspect()).IPAM as { Config: { Subnet: string }[] };
    const subnet = ipam.Config[0]?.Subnet;
    await publisher.setActive(serviceId, { ...entry, tasks: [...(entry.tasks ?? []), { name: `gone${run}`, address: lastUsable(subnet!) }] });
    await waitFor("the worker node's edge has the state naming the gone task", async () => {
      return edgesInStep() || undefined;
    }, { timeoutMs: 30_000, intervalMs: 200, describe: agentLogs });
    await new Promise((r) => setTimeout(r, 3_000)); // its replicas probed it
    for (let i = 0; i < 10; i++) expect(await onWorker(5_000)).toEqual({ status: 200, body: "v2\n" });
    const t0 = Date.now();
    const { sent, failures } = await whileLoaded(
      async () => {
        const r = await onWorker(5_000);
        return r.status === 200 ? { ok: true, body: r.body } : { ok: false, detail: `${r.status} ${r.body.slice(0, 120)} at ${new Date().toISOString()} (+${Date.now() - t0} ms)` };
      },
      async () => {
        await ensureNodeAgents({ dataDir, short, version, registry: h.registry, registryAuth: h.registryAuth, nodeEngineSocket: h.nodeEngineSocket, httpPort: HTTP_PORT, httpsPort: null, meshPort: MESH_PORT });
        await waitFor("the new version's replicas on the worker node, the old ones gone", async () => {
          const names = await replicas();
          return names.length === 2 && names.every((n) => n.includes(version)) ? true : undefined;
        }, { timeoutMs: 120_000, intervalMs: 500, describe: async () => `${(await replicas()).join(", ")}\n${await agentLogs()}` });
      },
      2_000,
    );
    console.log(`node agent upgrade: the worker node answered ${sent - failures.length} of ${sent} requests meanwhile`);
    if (failures.length > 0) {
      console.log(failures.join("\n"));
      console.log(await agentLogs());
      await printEdgeLogs(60, 40);
    }
    expect(await kept()).toEqual(before);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(5);
  }, 240_000);
  it("the manager's engine restarted: the worker node's Caddy serves the domain throughout", async () => {
    let away = 0;
    const { sent, failures } = await whileLoaded(
      async () => {
        const r = await onWorker(5_000);
        return r.status === 200 ? { ok: true, body: r.body } : { ok: false, detail: `${r.status} ${r.body.slice(0, 120)}` };
      },
      async () => void (away = await h.restartEngine(1)),
    );
    console.log(`the manager's engine restarted (away ${away} ms): the worker node's Caddy answered ${sent - failures.length} of ${sent} requests meanwhile`);
    if (failures.length > 0) {
      const logs = (await worker.docker.getContainer(edgeCaddyName(short)).logs({ stdout: true, stderr: true, tail: 400 })).toString("utf8");
      console.log(logs.split("\n").filter((l) => /error|502|fail/i.test(l)).slice(-20).join("\n"));
    }
    expect(sent).toBeGreaterThan(5);
    expect(failures).toEqual([]);
    // A release once the worker node's agent reads the feed again (the overlay's gossip comes back
    // ~30 s after the engine): nothing fails through its Caddy. A release in those ~30 s is a known
    // gap (README, Swarm): the swarm may replace the worker node's tasks after the manager's
    // restart while that node's edge, unable to read the feed, still names the old ones; in 4 of 8
    // runs its Caddy then had no live task for up to ~20 s.
    await waitFor("the worker node's edge to read the feed again", async () => {
      return edgesInStep(5_000) || undefined;
    }, { timeoutMs: 120_000, intervalMs: 500, describe: agentLogs });
    const t0 = Date.now();
    const after = await whileLoaded(
      async () => {
        const r = await onWorker(5_000);
        return r.status === 200 ? { ok: true, body: r.body } : { ok: false, detail: `${r.status} ${r.body.slice(0, 120)} at +${Date.now() - t0} ms` };
      },
      async () => {
        for (;;) {
          try {
            return await passUntilIdle(deps, () => input("rel3", images.v1), 150_000);
          } catch (err) {
            // The manager's API right after its restart: the worker's runner retries a pass that threw.
            if (Date.now() - t0 > 150_000) throw err;
            await new Promise((r) => setTimeout(r, 1_000));
          }
        }
      },
    );
    console.log(`a release after the manager's restart: ${after.failures.length} failed of ${after.sent} through the worker node's Caddy (${Date.now() - t0} ms from ${new Date(t0).toISOString()})`);
    if (after.failures.length > 0) {
      console.log(after.failures.join("\n"));
      console.log(await agentLogs());
      await printEdgeLogs(120, 60);
    }
    expect(after.result).toEqual(expect.arrayContaining(["switch", "done"]));
    expect(after.failures).toEqual([]);
    expect(after.bodies).toContain("v1\n");
  }, 420_000);
});
