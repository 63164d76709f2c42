import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { dockerRuntime } from "@levelrail/docker";
import { dockerSwarm } from "@levelrail/docker/swarm";
import { EDGE_ROLE, edgeName } from "@levelrail/docker/swarm/edge";
import { ensureNodeImage } from "@levelrail/testkit/node-image";
import { type SwarmHarness, startSwarm } from "@levelrail/testkit/swarm";
import { waitFor } from "@levelrail/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { desiredServers } from "../apps/worker/src/controllers/ingress/desired";
import { swarmMode } from "../apps/worker/src/swarm-mode";
import { diagnose } from "./doctor/main";

// What `npm start` runs on a swarm manager (scripts/lib/edge.mjs): the edge ingress and both mesh
// DNS replicas in its namespace, on a real engine that is a swarm manager (in a network namespace
// of the test's own). A host-network Caddy of an earlier start goes; a second start adopts
// everything; the worker then finds the edge (swarm mode), and a request through the published
// port is answered by the data plane's fallback page through Caddy and the mesh DNS in the
// namespace. Run by `npm run test:swarm`, as root.

const short = `${process.env.LEVELRAIL_SHORT_NAME ?? "lrsw"}e`;
const run = randomBytes(3).toString("hex");
const dataDir = `/tmp/${short}-start-${run}`;
const HTTP_PORT = 18081;
const MESH_PORT = 15363;
let h: SwarmHarness;
let edgeLib: typeof import("./lib/edge.mjs");

/** `levelrail doctor`'s swarm check against the test's manager. */
async function swarmDoctor() {
  const results = await diagnose({ ...process.env, DOCKER_HOST: h.manager.dockerHost, LEVELRAIL_SHORT_NAME: short, LEVELRAIL_DATA_DIR: dataDir });
  return results.find((r) => r.name === "swarm");
}

beforeAll(async () => {
  h = await startSwarm({ shortName: short, nodes: 1, heartbeatSeconds: 1, net: "10.238.0", registryPort: 56118 });
  // The launcher's helpers talk to DOCKER_HOST's engine: the test swarm's manager.
  process.env.DOCKER_HOST = h.manager.dockerHost;
  edgeLib = await import("./lib/edge.mjs");
}, 240_000);

afterAll(async () => {
  await h?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start on a swarm manager", () => {
  it("runs the edge ingress with both mesh DNS replicas in its namespace, in place of a host-network Caddy; a second start adopts it all", async () => {
    const docker = h.manager.docker;
    expect(await edgeLib.isSwarmManager()).toBe(true);
    // A host-network Caddy an earlier start (before the swarm) left.
    const node = await ensureNodeImage(docker);
    const old = await docker.createContainer({
      name: `${short}-caddy`,
      Image: node.image,
      Entrypoint: [node.node, "-e", "setInterval(() => {}, 1 << 30)"],
      Labels: { "levelrail.managed": "true", "levelrail.instance": short, "levelrail.role": "ingress" },
      HostConfig: { NetworkMode: "host" },
    });
    await old.start();

    const t0 = Date.now();
    const opts = { dataDir, short, httpPort: HTTP_PORT, httpsPort: null, port: MESH_PORT };
    expect(await edgeLib.ensureSwarmEdge(opts)).toBe(edgeName(short));
    console.log(`edge made in ${Date.now() - t0} ms (images built on the engine)`);
    await expect(old.inspect()).rejects.toMatchObject({ statusCode: 404 });

    const ids = async () => (await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`levelrail.instance=${short}`] }) })).map((c) => c.Id).sort();
    const before = await ids();
    const t1 = Date.now();
    await edgeLib.ensureSwarmEdge(opts);
    console.log(`a second start adopted the edge in ${Date.now() - t1} ms`);
    expect(await ids()).toEqual(before);

    const [holder] = await docker.listContainers({ filters: JSON.stringify({ label: [`levelrail.instance=${short}`, `levelrail.role=${EDGE_ROLE}`] }) });
    expect(holder?.Names).toEqual([`/${edgeName(short)}`]);
    const replicas = await docker.listContainers({ filters: JSON.stringify({ label: [`levelrail.instance=${short}`, "levelrail.role=mesh-dns"] }) });
    expect(replicas).toHaveLength(2);
    for (const r of replicas) {
      // In the holder's namespace (the engine names it by id).
      expect(r.HostConfig.NetworkMode).toBe(`container:${holder!.Id}`);
      expect(r.Labels["levelrail.network"]).toBe(edgeName(short));
    }
  }, 240_000);

  it("the worker finds the edge; the ingress config it loads makes Caddy answer through the mesh DNS in the namespace", async () => {
    const mode = await swarmMode(h.manager.docker, dockerRuntime({ dockerHost: h.manager.dockerHost }), dockerSwarm({ dockerHost: h.manager.dockerHost }), short);
    if (!mode) throw new Error("the worker did not find the edge");
    expect(mode.caddyAdmin.adminConfig.listen).toBe(`unix/${join(edgeLib.edgeCaddyHome(dataDir), "admin.sock")}`);
    await mode.caddyAdmin.load({ admin: mode.caddyAdmin.adminConfig, apps: { http: { servers: desiredServers({ shortName: short, httpPort: 80, httpsPort: null, dataPlane: `127.0.0.1:${MESH_PORT}` }) } } });
    // No service has this domain: the data plane's fallback page answers it, through Caddy's SRV lookup in the namespace.
    const res = await waitFor("an answer through the published port", async () => {
      const r = await fetch(`http://${h.manager.address}:${HTTP_PORT}/`, { headers: { "x-probe": "1" }, signal: AbortSignal.timeout(3000) }).catch(() => null);
      return r && r.status !== 502 ? r : undefined;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/levelrail|no service|not found/i);
  }, 120_000);

  it("`levelrail stop --all` stops the edge; the next start brings it back in a new namespace, with Caddy's config and the mesh DNS in it", async () => {
    const { stopMeshDns } = await import("./lib/dataplane.mjs");
    const stopped = [...(await stopMeshDns(dataDir, short)), ...(await edgeLib.stopSwarmEdge(short))];
    expect(stopped.join("; ")).toMatch(/mesh DNS .*Caddy .*holder/);
    // doctor says the edge is gone, and what to do.
    expect(await swarmDoctor()).toMatchObject({ status: "warn", message: expect.stringContaining(`the edge ingress does not run here (${short}-edge and ${short}-edge-caddy not running)`) });
    const running = await h.manager.docker.listContainers({ filters: JSON.stringify({ label: [`levelrail.instance=${short}`] }) });
    expect(running.map((c) => c.Names[0])).toEqual([]);
    const t0 = Date.now();
    await edgeLib.ensureSwarmEdge({ dataDir, short, httpPort: HTTP_PORT, httpsPort: null, port: MESH_PORT });
    const res = await waitFor("the edge to answer again", async () => {
      const r = await fetch(`http://${h.manager.address}:${HTTP_PORT}/`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
      return r && r.status !== 502 ? r : undefined;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    console.log(`the edge serves again ${Date.now() - t0} ms after the start`);
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/no service has this domain/);
    // On a kernel without IPsec ESP the check adds a note about overlay encryption (with one node, still ok).
    expect(await swarmDoctor()).toMatchObject({ status: "ok", message: expect.stringMatching(/^swarm manager of 1 node \(1 manager\), every one ready; the edge ingress runs here($|; once another node joins, app and database overlays are not encrypted)/) });
  }, 120_000);

  it("a holder made again (its inputs changed) joins every app overlay again, so Caddy reaches the tasks that serve now", async () => {
    const overlay = `${short}-app-rejoin${run}`;
    await h.manager.docker.createNetwork({ Name: overlay, Driver: "overlay", Attachable: true, Labels: { "levelrail.managed": "true", "levelrail.instance": short, "levelrail.app": `rejoin${run}` } });
    const before = (await h.manager.docker.getContainer(edgeName(short)).inspect()).Id;
    // Another HTTP port: the holder's inputs change, so it is made again (a new namespace).
    await edgeLib.ensureSwarmEdge({ dataDir, short, httpPort: HTTP_PORT + 1, httpsPort: null, port: MESH_PORT });
    // One edge network, however many starts made it.
    expect((await h.manager.docker.listNetworks()).filter((n) => n.Name === edgeName(short))).toHaveLength(1);
    const holder = await h.manager.docker.getContainer(edgeName(short)).inspect();
    expect(holder.Id).not.toBe(before);
    expect(Object.keys(holder.NetworkSettings.Networks)).toContain(overlay);
  }, 120_000);

  it("doctor on a swarm manager: never asks for live-restore, which dockerd refuses in swarm mode", async () => {
    const results = await diagnose({ ...process.env, DOCKER_HOST: h.manager.dockerHost, LEVELRAIL_SHORT_NAME: short, LEVELRAIL_DATA_DIR: dataDir });
    expect(results.find((r) => r.name === "live-restore")).toMatchObject({ status: "warn", message: expect.stringContaining("not available in swarm mode") });
  }, 60_000);
});
