import { randomBytes, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { demuxLogs, dockerRuntime } from "@levelrail/docker";
import { type SwarmPort, dockerSwarm } from "@levelrail/docker/swarm";
import { EDGE_CADDY_ROLE, edgeCaddyName, edgeName, joinEdge } from "@levelrail/docker/swarm/edge";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE } from "@levelrail/spec/dataplane";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { meshZone, networkName } from "@levelrail/spec/naming";
import { type SwarmHarness, startClient, startSwarm } from "@levelrail/testkit/swarm";
import { whileLoaded } from "@levelrail/testkit/load";
import { waitFor } from "@levelrail/testkit/wait";
import type Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatePublisher } from "../../dataplane/publisher";
import { ensureAppOverlay } from "../../network/app-overlay";
import type { DesiredRelease } from "../application/ports";
import { MemoryStore, spec } from "../application/testbed";
import { type TestEdge, startTestEdge, testReleaseDeps } from "./edge-testbed";
import { swarmMode } from "../../swarm-mode";
import { swarmReleaseController } from "./controller";
import { passUntilIdle } from "./index";
import type { SwarmReleaseDeps } from "./reconcile";
import { TestReleases } from "./testing";

// A swarm node's ingress on real engines (issue 26): on the manager, the edge namespace
// (`@levelrail/docker/swarm/edge`: a holder container on a bridge with the ingress port published,
// Caddy in its namespace with the admin API on a unix socket, and both mesh DNS replicas there too),
// joined live to the app's overlay when the release controller makes it. Caddy runs the product's
// ingress config (`desiredServers`, loaded through the socket) and asks the product's data plane,
// which follows the state file the release controller writes. Requests from outside the swarm
// through the manager's published port reach the release's tasks on both nodes; a new release
// switches with no failed request through Caddy; a killed Caddy is back with its config.
// Run by `npm run test:swarm`, as root.

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
const appId = `e${run}`;
const serviceId = `svc-${run}`;
const DOMAIN = `shop-${run}.test`;
const HTTP_PORT = 18080;
const MESH_PORT = 15353;
const pool = { pool: "10.236.0.0/16", bits: 26 };
const base = `/tmp/${short}-edge-${run}`;
const dataDir = join(base, "data");

let h: SwarmHarness;
let swarm: SwarmPort;
let docker: Docker;
let images: { v1: string; v2: string };
let deps: SwarmReleaseDeps;
let edge: TestEdge;
const publisher = new StatePublisher(join(dataDir, DATAPLANE_DIR, DATAPLANE_STATE_FILE));
let rels: TestReleases;
const input = (releaseId: string, image: string) => rels.input(releaseId, image);

const get = (timeoutMs = 3_000, host = DOMAIN) => edge.get(host, timeoutMs);

beforeAll(async () => {
  h = await startSwarm({ shortName: short, nodes: 2, heartbeatSeconds: 1 });
  rels = new TestReleases({ shortName: short, serviceId, appId, appName: "shop", registryAuth: h.registryAuth });
  swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  docker = h.manager.docker;
  images = {
    v1: await h.pushTestImage({ tag: `${short}-test/edge:v1`, body: "v1\n", healthy: true }),
    v2: await h.pushTestImage({ tag: `${short}-test/edge:v2`, body: "v2\n", healthy: true }),
  };
  await publisher.setDomains({ [DOMAIN]: serviceId });
  edge = await startTestEdge(h, { shortName: short, dataDir, httpPort: HTTP_PORT, meshPort: MESH_PORT });

  deps = testReleaseDeps(h, { shortName: short, pool, dataDir, status: rels, active: publisher, drainMs: 2_000 });
}, 240_000);

afterAll(async () => {
  edge?.close();
  await h?.stop();
  rmSync(base, { recursive: true, force: true });
});

describe("a swarm node's ingress", () => {
  it("a release's tasks on both nodes serve its domain through the manager's Caddy, from outside the swarm", async () => {
    await passUntilIdle(deps, () => input("rel1", images.v1));
    expect(rels.releases.get("rel1")).toMatchObject({ outcome: "succeeded" });
    expect(new Set(rels.status?.replicas?.map((r) => r.node)).size).toBe(2);
    // The namespace joined the app's overlay live (the holder was not restarted), once.
    expect(await joinEdge(docker, short, networkName(short, appId))).toBe(false);
    const answers = await waitFor("the domain to answer through Caddy", async () => {
      const r = await get().catch(() => null);
      return r?.status === 200 ? r : undefined;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    expect(answers.body).toBe("v1\n");
    for (let i = 0; i < 10; i++) expect(await get()).toEqual({ status: 200, body: "v1\n" });
  }, 180_000);

  it("blue-green through Caddy: nothing fails while the new release's tasks replace the old ones", async () => {
    const { result: steps, sent, failures, bodies } = await whileLoaded(
      async () => {
        const r = await get();
        return r.status === 200 ? { ok: true, body: r.body } : { ok: false, detail: `${r.status} ${r.body.slice(0, 120)}` };
      },
      () => passUntilIdle(deps, () => input("rel2", images.v2)),
    );
    expect(steps).toEqual(expect.arrayContaining(["create", "switch", "done"]));
    console.log(`swarm cutover through the manager's Caddy: ${failures.length} failed of ${sent}`);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(20);
    expect(bodies).toEqual(new Set(["v1\n", "v2\n"]));
  }, 180_000);

  it("a killed Caddy is restarted by the engine in the same namespace, with its config, and serves again", async () => {
    const [caddy] = await docker.listContainers({ filters: JSON.stringify({ label: [`levelrail.role=${EDGE_CADDY_ROLE}`, `levelrail.instance=${short}`] }) });
    expect(caddy?.Names).toEqual([`/${edgeCaddyName(short)}`]);
    // SIGKILL from the host (the engine's own kill would count as an operator's stop).
    const pid = (await docker.getContainer(caddy!.Id).inspect()).State.Pid;
    const killedAt = Date.now();
    process.kill(pid, "SIGKILL");
    await waitFor("the domain to answer again", async () => ((await get(1_000).catch(() => null))?.body === "v2\n" ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
    console.log(`Caddy killed: serving again after ${Date.now() - killedAt} ms`);
  }, 60_000);

  it("the manager's engine restarted: the worker node's task serves throughout; the edge comes back with the engine and the domain serves again", async () => {
    const svc = (await swarm.inspectService(input("rel2", images.v2).release!.spec.name))!;
    const workerId = (await swarm.listNodes()).find((n) => n.address === h.nodes[1]!.address)!.id;
    const task = (await swarm.listTasks(svc.id)).find((t) => t.nodeId === workerId && t.state === "running")!;
    const address = Object.values(task.addresses)[0]!;
    const startedAt = (await h.nodes[1]!.docker.getContainer(task.containerId!).inspect()).State.StartedAt;
    // From a container on the worker node, on the app's overlay: requests that never touch the manager.
    const client = await startClient(h.nodes[1]!, { network: networkName(short, appId), image: svc.image, shortName: short });
    try {
      let away = 0;
      const { sent, failures } = await whileLoaded(
        async () => {
          const r = await client.get(`http://${address}:8080/`, 3);
          return r.exitCode === 0 ? { ok: true, body: r.out } : { ok: false, detail: `exit ${r.exitCode} ${r.out}` };
        },
        async () => void (away = await h.restartEngine(1)),
      );
      expect(failures).toEqual([]);
      expect(sent).toBeGreaterThan(5);
      // The same container, never restarted: the worker's agent kept it while its manager was away.
      expect((await h.nodes[1]!.docker.getContainer(task.containerId!).inspect()).State).toMatchObject({ Running: true, StartedAt: startedAt });
      // The manager's own task is replaced after its engine's restart: passes (the worker's, on the
      // swarm's task changes) take the release's tasks as they run now.
      const back = Date.now();
      await waitFor("the data plane to name the release's running tasks", async () => {
        await passUntilIdle(deps, () => input("rel2", images.v2));
        const running = (await swarm.listTasks(svc.id)).filter((t) => t.desiredState === "running" && t.state === "running").map((t) => t.id).sort();
        const active = (publisher.current().services[serviceId]?.tasks ?? []).map((t) => t.name).sort();
        return running.length === 2 && running.join() === active.join() ? true : undefined;
      }, { timeoutMs: 60_000, intervalMs: 500 });
      await waitFor("the domain through the manager's Caddy", async () => ((await get(2_000).catch(() => null))?.body === "v2\n" ? true : undefined), {
        timeoutMs: 60_000,
        intervalMs: 200,
        describe: async () => {
          const r = await get(2_000).catch((e: unknown) => String(e));
          const list = await docker.listContainers({ all: true });
          const holder = await docker.getContainer(edgeName(short)).inspect().catch(() => null);
          const caddyLogs = (await docker.getContainer(edgeCaddyName(short)).logs({ stdout: true, stderr: true, tail: 8 }).catch(() => "")).toString();
          return JSON.stringify({ r, containers: list.map((c) => `${c.Names[0]} ${c.State} ${c.Status}`), holderNets: Object.keys(holder?.NetworkSettings.Networks ?? {}), active: publisher.current().services[serviceId], caddyLogs });
        },
      });
      const servedAt = Date.now();
      // Steady: ten requests in a row answered (the first ones after the engine's restart may still
      // find the overlay's peers being learned again).
      const steadyAt = await waitFor("ten requests in a row through the manager's Caddy", async () => {
        for (let i = 0; i < 10; i++) if ((await get(3_000).catch(() => null))?.body !== "v2\n") return undefined;
        return Date.now();
      }, { timeoutMs: 60_000, intervalMs: 200 });
      console.log(`the manager's engine restarted (away ${away} ms): the worker's task answered ${sent} of ${sent} requests meanwhile; the domain served again through the manager's Caddy ${servedAt - back} ms after the engine answered, steadily ${steadyAt - back} ms after`);
      // The restarted manager sees the other node ready again only once it reported back: until
      // then the swarm places new tasks on the manager alone (the next test spreads two).
      await waitFor("every node ready again in the manager's view", async () => ((await swarm.listNodes()).every((n) => n.state === "ready") ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 });
    } finally {
      await client.remove();
    }
  }, 240_000);

  it("the worker's swarm mode: with the edge on a swarm manager, a service key's pass runs the release as swarm services and Caddy serves it", async () => {
    const runtime = dockerRuntime({ dockerHost: h.manager.dockerHost });
    const mode = await swarmMode(docker, runtime, swarm, short);
    if (!mode) throw new Error("swarm mode not detected with the edge running on a swarm manager");
    // The ingress controller's loads then keep the socket as Caddy's admin endpoint.
    expect(mode.caddyAdmin.adminConfig).toEqual(edge.admin.adminConfig);
    const id = randomUUID();
    const app2 = `w${run}`;
    const domain = `api-${run}.test`;
    await publisher.setDomains({ ...publisher.current().domains, [domain]: id });
    const release: DesiredRelease = { id: `wrel-${run}`, spec: spec({ image: images.v1, healthPath: "/", env: { GREETING: "hi" }, replicas: 2 }), restartNonce: "", imageId: null, outcome: "pending", finishedAt: null, message: "" };
    const store = new MemoryStore({
      id, name: "api", appId: app2, appName: "shop2", environmentId: "env-1", orgId: "org-1", registryCredentialId: null,
      envTarget: { serviceId: id, orgId: "org-1", projectId: "p-1", environmentId: "env-1", env: {}, secretKeys: [], storageTargetId: null, databaseEnv: {} },
      release,
    });
    const controller = swarmReleaseController({
      deps: {
        ...deps,
        prober: mode.swarmReleases.prober,
        async ensureNetwork(appId) {
          await ensureAppOverlay(runtime, swarm, short, appId, pool);
          await mode.swarmReleases.join(networkName(short, appId));
        },
        async nameservers(appId) {
          const mesh = await mode.swarmReleases.meshDns(networkName(short, appId));
          return mesh ? [mesh] : [];
        },
        status: store,
      },
      store,
      envStores: {},
      registry: undefined,
    });
    // As the worker's runner runs the key: again when a pass asks.
    const until = Date.now() + 120_000;
    for (;;) {
      const r = await controller.reconcile(formatKey(serviceKey(id)));
      if (!r || r.requeueAfterMs === undefined) break;
      if (Date.now() > until) throw new Error(`no convergence: ${JSON.stringify(store.status)}`);
      await new Promise((done) => setTimeout(done, Math.min(r.requeueAfterMs!, 1_000)));
    }
    expect(store.releases.get(release.id)).toMatchObject({ outcome: "succeeded" });
    expect(store.status).toMatchObject({ phase: "running", message: expect.stringMatching(/^2 tasks on /) });
    const served = await waitFor("the new service's domain to answer through Caddy", async () => {
      const r = await get(3_000, domain).catch(() => null);
      return r?.status === 200 ? r : undefined;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    expect(served.body).toBe("v1\n");
    // Its service carries the env, and the image pinned by digest.
    const [svc] = await swarm.listServices([`levelrail.service=${id}`]);
    expect(svc?.image).toMatch(/@sha256:[0-9a-f]{64}$/);

    // Mesh names: a task on each node resolves the bare service name through the mesh DNS in the
    // edge namespace (its address on the app's overlay, in the task's resolv.conf) to the active tasks.
    const tasks = (await swarm.listTasks(svc!.id)).filter((t) => t.state === "running");
    const nodes = await swarm.listNodes();
    for (const t of tasks) {
      const node = h.nodes.find((n) => n.address === nodes.find((x) => x.id === t.nodeId)?.address)!;
      const container = node.docker.getContainer(t.containerId!);
      const inTask = async (cmd: string[]) => {
        const ex = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
        const stream = await ex.start({});
        const chunks: Buffer[] = [];
        await new Promise<void>((done) => { stream.on("data", (c: Buffer) => chunks.push(c)); stream.on("end", () => done()); });
        return { code: (await ex.inspect()).ExitCode, out: demuxLogs(Buffer.concat(chunks)) };
      };
      const resolv = await inTask(["/bin/busybox", "cat", "/etc/resolv.conf"]);
      expect(resolv.out).toContain(`search shop2.${meshZone(short)}`);
      // (busybox's own timeout: this build's `wget -T` crashes.)
      expect(await inTask(["/bin/busybox", "timeout", "10", "/bin/busybox", "wget", "-q", "-O-", "http://api:8080/"])).toEqual({ code: 0, out: "v1\n" });
      // Another app's service (shop's web, whose overlay the edge joined too) does not resolve here.
      const other = await inTask(["/bin/busybox", "nslookup", `web.shop.${meshZone(short)}`]);
      expect(other.code, other.out).not.toBe(0);
    }
    expect(new Set(tasks.map((t) => t.nodeId)).size).toBe(2);
  }, 180_000);
});
