// The edge ingress on a test swarm's manager as the tests and the swarm benchmark run it: what
// `npm start` makes on a swarm manager (scripts/lib/edge.mjs: the holder, Caddy, both mesh DNS
// replicas of the product's data plane in the namespace), then the product's ingress config loaded
// through Caddy's admin socket, as the worker's ingress controller would.
import { Agent, request } from "node:http";
import { edgeAdminConfig, edgeAdminSocket } from "@levelrail/docker/swarm/edge";
import { join } from "node:path";
import { DATAPLANE_DIR, EDGE_CADDY_FILE, nodeAgentName } from "@levelrail/spec/dataplane";
import type { SwarmHarness, SwarmNode } from "@levelrail/testkit/swarm";
import { mirroredCaddyAdmin } from "../../swarm-mode";
import { dockerRuntime } from "@levelrail/docker";
import { dockerSwarm } from "@levelrail/docker/swarm";
import { edgeName, joinEdge } from "@levelrail/docker/swarm/edge";
import { EDGE_ACKS_FILE } from "@levelrail/spec/dataplane";
import { networkName } from "@levelrail/spec/naming";
import { ACK_FRESH_MS, agentNodes, laggingEdges, readEdgeAcks } from "../../dataplane/edge-acks";
import type { StatePublisher } from "../../dataplane/publisher";
import { ensureAppOverlay } from "../../network/app-overlay";
import type { SubnetPool } from "../../network/pool";
import type { StatusWriter } from "../application/ports";
import { edgeProber } from "./probe";
import type { SwarmReleaseDeps } from "./reconcile";
import { type CaddyAdmin, caddyAdminSocket } from "../ingress/caddy";
import { desiredServers } from "../ingress/desired";

export interface TestEdge {
  admin: CaddyAdmin;
  /** One GET of `host` through the manager's published ingress port, from the host (outside the swarm), on a keep-alive connection. */
  get(host: string, timeoutMs?: number): Promise<{ status: number; body: string }>;
  /** The same through another node's published ingress port (its own edge, with `nodeAgents`). */
  getOn(node: SwarmNode, host: string, timeoutMs?: number): Promise<{ status: number; body: string }>;
  close(): void;
}

/**
 * Makes the edge on `h`'s manager (the launcher's helpers then talk to that engine: this process's
 * DOCKER_HOST is set to it). The data plane's state file is under `dataDir/dataplane/`, written by
 * the caller's `StatePublisher`.
 */
export async function startTestEdge(h: SwarmHarness, o: { shortName: string; dataDir: string; httpPort: number; meshPort: number; nodeAgents?: boolean }): Promise<TestEdge> {
  process.env.DOCKER_HOST = h.manager.dockerHost;
  const { edgeCaddyHome, ensureSwarmEdge } = await import("../../../../../scripts/lib/edge.mjs");
  const nodeAgents = o.nodeAgents ? { registry: h.registry, registryAuth: h.registryAuth, nodeEngineSocket: h.nodeEngineSocket } : null;
  await ensureSwarmEdge({ dataDir: o.dataDir, short: o.shortName, httpPort: o.httpPort, httpsPort: null, port: o.meshPort, nodeAgents });
  const home = edgeCaddyHome(o.dataDir);
  // As the worker does: every config loaded is also where the node agents read it.
  const admin = mirroredCaddyAdmin(caddyAdminSocket(edgeAdminSocket(home), edgeAdminConfig(home)), join(o.dataDir, DATAPLANE_DIR, EDGE_CADDY_FILE));
  // The product's ingress config, in the namespace: Caddy serves on 80 (published on httpPort) and asks the mesh DNS on its loopback.
  await admin.load({ admin: admin.adminConfig, apps: { http: { servers: desiredServers({ shortName: o.shortName, httpPort: 80, httpsPort: null, dataPlane: `127.0.0.1:${o.meshPort}`, swarm: true }) } } });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const getOn = (node: SwarmNode, host: string, timeoutMs = 3_000) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: node.address, port: o.httpPort, path: "/", headers: { Host: host }, agent, timeout: timeoutMs }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          res.on("error", reject);
        });
        req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        req.on("error", reject);
        req.end();
      });
  return {
    admin,
    get: (host, timeoutMs) => getOn(h.manager, host, timeoutMs),
    getOn,
    close: () => agent.destroy(),
  };
}

/**
 * The release controller's deps on a test swarm, as the worker wires them: the app's overlay made
 * from `pool` and joined by the manager's edge, tasks probed from there, the data plane's state in
 * `active` (under `dataDir`), and the node edges' acknowledgements read beside it.
 */
export function testReleaseDeps(h: SwarmHarness, o: { shortName: string; pool: SubnetPool; dataDir: string; status: StatusWriter; active: StatePublisher; drainMs: number }): SwarmReleaseDeps {
  const swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  const runtime = dockerRuntime({ dockerHost: h.manager.dockerHost });
  return {
    shortName: o.shortName,
    swarm,
    images: runtime,
    ensureNetwork: async (id) => {
      await ensureAppOverlay(runtime, swarm, o.shortName, id, o.pool);
      await joinEdge(h.manager.docker, o.shortName, networkName(o.shortName, id));
    },
    prober: edgeProber(runtime, edgeName(o.shortName), process.execPath),
    status: o.status,
    active: o.active,
    edgesBehind: async (serviceId) =>
      laggingEdges(readEdgeAcks(join(o.dataDir, DATAPLANE_DIR, EDGE_ACKS_FILE)), o.active.generationOf(serviceId), Date.now(), ACK_FRESH_MS, await agentNodes(swarm, nodeAgentName(o.shortName))),
    drainMs: o.drainMs,
  };
}
