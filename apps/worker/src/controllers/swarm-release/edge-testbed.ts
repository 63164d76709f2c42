// The edge ingress on a test swarm's manager as the tests and the swarm benchmark run it: what
// `npm start` makes on a swarm manager (scripts/lib/edge.mjs: the holder, Caddy, both mesh DNS
// replicas of the product's data plane in the namespace), then the product's ingress config loaded
// through Caddy's admin socket, as the worker's ingress controller would.
import { Agent, request } from "node:http";
import { edgeAdminConfig, edgeAdminSocket } from "@levelrail/docker/swarm/edge";
import type { SwarmHarness } from "@levelrail/testkit/swarm";
import { type CaddyAdmin, caddyAdminSocket } from "../ingress/caddy";
import { desiredServers } from "../ingress/desired";

export interface TestEdge {
  admin: CaddyAdmin;
  /** One GET of `host` through the manager's published ingress port, from the host (outside the swarm), on a keep-alive connection. */
  get(host: string, timeoutMs?: number): Promise<{ status: number; body: string }>;
  close(): void;
}

/**
 * Makes the edge on `h`'s manager (the launcher's helpers then talk to that engine: this process's
 * DOCKER_HOST is set to it). The data plane's state file is under `dataDir/dataplane/`, written by
 * the caller's `StatePublisher`.
 */
export async function startTestEdge(h: SwarmHarness, o: { shortName: string; dataDir: string; httpPort: number; meshPort: number }): Promise<TestEdge> {
  process.env.DOCKER_HOST = h.manager.dockerHost;
  const { edgeCaddyHome, ensureSwarmEdge } = await import("../../../../../scripts/lib/edge.mjs");
  await ensureSwarmEdge({ dataDir: o.dataDir, short: o.shortName, httpPort: o.httpPort, httpsPort: null, port: o.meshPort });
  const home = edgeCaddyHome(o.dataDir);
  const admin = caddyAdminSocket(edgeAdminSocket(home), edgeAdminConfig(home));
  // The product's ingress config, in the namespace: Caddy serves on 80 (published on httpPort) and asks the mesh DNS on its loopback.
  await admin.load({ admin: admin.adminConfig, apps: { http: { servers: desiredServers({ shortName: o.shortName, httpPort: 80, httpsPort: null, dataPlane: `127.0.0.1:${o.meshPort}` }) } } });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  return {
    admin,
    get: (host, timeoutMs = 3_000) =>
      new Promise((resolve, reject) => {
        const req = request({ host: h.manager.address, port: o.httpPort, path: "/", headers: { Host: host }, agent, timeout: timeoutMs }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          res.on("error", reject);
        });
        req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        req.on("error", reject);
        req.end();
      }),
    close: () => agent.destroy(),
  };
}
