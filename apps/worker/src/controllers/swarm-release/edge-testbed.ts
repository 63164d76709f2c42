// The edge ingress on a test swarm's manager as the tests and the swarm benchmark run it (not used
// in production yet: `npm start` does not make the edge): the holder and Caddy
// (`@levelrail/docker/swarm/edge`), both mesh DNS replicas of the product's data plane (bundled,
// run on the holder image's node) in the same namespace, and the product's ingress config loaded
// through Caddy's admin socket.
import { mkdirSync, statSync } from "node:fs";
import { Agent, request } from "node:http";
import { dirname, join } from "node:path";
import { type EdgeOptions, edgeAdminConfig, edgeAdminSocket, edgeName, ensureEdge } from "@levelrail/docker/swarm/edge";
import { DATAPLANE_DIR } from "@levelrail/spec/dataplane";
import { ensureHostImage } from "@levelrail/testkit/node-image";
import type { SwarmHarness } from "@levelrail/testkit/swarm";
import type Docker from "dockerode";
import { BUNDLES, bundle } from "../../../../../scripts/lib/bundle.mjs";
import { type CaddyAdmin, caddyAdminSocket } from "../ingress/caddy";
import { desiredServers } from "../ingress/desired";

export interface TestEdge {
  /** The image of the holder, Caddy and the mesh DNS (node and caddy from the host). */
  image: string;
  admin: CaddyAdmin;
  options: EdgeOptions;
  /** One GET of `host` through the manager's published ingress port, from the host (outside the swarm), on a keep-alive connection. */
  get(host: string, timeoutMs?: number): Promise<{ status: number; body: string }>;
  close(): void;
}

/**
 * Makes the edge on `h`'s manager: the data plane's folder is `dataDir` (its state file under
 * `dataplane/`, written by the caller's `StatePublisher`), Caddy's is `caddyHome`.
 */
export async function startTestEdge(h: SwarmHarness, o: { shortName: string; dataDir: string; caddyHome: string; bundleDir: string; httpPort: number; meshPort: number }): Promise<TestEdge> {
  const docker = h.manager.docker;
  const caddy = statSync("/usr/bin/caddy");
  const image = await ensureHostImage(docker, { tag: `levelrail-test/edge:${process.version.slice(1)}-${caddy.size.toString(36)}`, files: [process.execPath, "/usr/bin/caddy"] });
  mkdirSync(join(o.dataDir, DATAPLANE_DIR), { recursive: true });
  await bundle({ entry: BUNDLES.dataplane.entry, outfile: join(o.bundleDir, "main.mjs") });
  const admin = caddyAdminSocket(edgeAdminSocket(o.caddyHome), edgeAdminConfig(o.caddyHome));
  const options: EdgeOptions = { shortName: o.shortName, holderImage: { image, node: process.execPath }, caddyImage: image, httpPort: o.httpPort, httpsPort: null, caddyHome: o.caddyHome };
  await ensureEdge(docker, options, () => admin.getConfig().then(() => true, () => false));
  const socket = h.manager.dockerHost.replace(/^unix:\/\//, "");
  for (const replica of [0, 1]) await startMesh(docker, { ...o, image, replica, socketDir: dirname(socket), socketFile: socket.slice(dirname(socket).length + 1) });
  // The product's ingress config, in the namespace: Caddy serves on 80 (published on httpPort) and asks the mesh DNS on its loopback.
  await admin.load({ admin: admin.adminConfig, apps: { http: { servers: desiredServers({ shortName: o.shortName, httpPort: 80, httpsPort: null, dataPlane: `127.0.0.1:${o.meshPort}` }) } } });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  return {
    image,
    admin,
    options,
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

/** A mesh DNS replica in the edge namespace: the product's data plane, bundled, on the holder image's node. */
async function startMesh(docker: Docker, o: { shortName: string; dataDir: string; bundleDir: string; meshPort: number; image: string; replica: number; socketDir: string; socketFile: string }) {
  const c = await docker.createContainer({
    name: `${o.shortName}-edge-mesh-${o.replica}`,
    Image: o.image,
    Entrypoint: [process.execPath, "--enable-source-maps", join(o.bundleDir, "main.mjs")],
    Env: [
      `LEVELRAIL_DATA_DIR=${o.dataDir}`,
      `LEVELRAIL_SHORT_NAME=${o.shortName}`,
      `LEVELRAIL_MESH_DNS_PORT=${o.meshPort}`,
      `LEVELRAIL_MESH_DNS_REPLICA=${o.replica}`,
      "LEVELRAIL_DATAPLANE_SUPERVISOR=engine",
      `DOCKER_HOST=unix://${join("/run/levelrail-engine", o.socketFile)}`,
    ],
    Labels: { "levelrail.managed": "true", "levelrail.instance": o.shortName, "levelrail.role": "edge-mesh" },
    HostConfig: {
      NetworkMode: `container:${edgeName(o.shortName)}`,
      Binds: [`${o.bundleDir}:${o.bundleDir}:ro`, `${o.dataDir}:${o.dataDir}`, `${o.socketDir}:/run/levelrail-engine`],
      RestartPolicy: { Name: "unless-stopped" },
    },
  } as Docker.ContainerCreateOptions);
  await c.start();
}
