// The node's ingress as `npm start` and `levelrail install` make it, first of all (it serves the
// apps whatever happens to the panel): on one engine a host-network Caddy and the two mesh DNS
// replicas; on a swarm manager the edge namespace (scripts/lib/edge.mjs), with the node agents when
// the installation has a registry every node pulls from (docs/operating/nodes-and-swarm.md#the-data-plane-on-every-node).
import { ensureCaddy } from "./caddy.mjs";
import { ensureDataPlane } from "./dataplane.mjs";
import { ensureSwarmEdge, isSwarmManager } from "./edge.mjs";

/** The node agents' options from the environment (`LEVELRAIL_SWARM_REGISTRY` …); null without a registry. */
export function nodeAgentsFromEnv(env = process.env) {
  const registry = env.LEVELRAIL_SWARM_REGISTRY;
  if (!registry) return null;
  const username = env.LEVELRAIL_SWARM_REGISTRY_USERNAME;
  return {
    registry,
    registryAuth: username ? { username, password: env.LEVELRAIL_SWARM_REGISTRY_PASSWORD ?? "", serveraddress: registry } : null,
    nodeEngineSocket: env.LEVELRAIL_NODE_ENGINE_SOCKET ?? "/var/run/docker.sock",
  };
}

/** Makes or adopts the ingress; answers which kind runs: `edge` (swarm manager) or `host`. */
export async function ensureIngress({ dataDir, short, caddyAdmin, meshPort, env = process.env }) {
  if (await isSwarmManager()) {
    // In the edge namespace Caddy serves on 80 and 443, published on the ingress ports.
    const httpPort = Number(env.LEVELRAIL_INGRESS_HTTP_PORT ?? "80");
    const httpsPort = (env.LEVELRAIL_INGRESS_TLS ?? "on") === "on" ? Number(env.LEVELRAIL_INGRESS_HTTPS_PORT ?? "443") : null;
    await ensureSwarmEdge({ dataDir, short, httpPort, httpsPort, port: Number(meshPort), nodeAgents: nodeAgentsFromEnv(env) });
    return "edge";
  }
  await ensureCaddy({ dataDir, admin: caddyAdmin, short });
  await ensureDataPlane({ dataDir, port: Number(meshPort), short });
  return "host";
}
