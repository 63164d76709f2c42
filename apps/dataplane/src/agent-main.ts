// The node agent's process (see agent.ts): its settings come from the swarm service that runs it
// (scripts/lib/node-agent.mjs), the node's own values through the service's templates.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import Docker from "dockerode";
import { z } from "zod";
import { EDGE_FEED_TOKEN_SECRET_FILE } from "@levelrail/spec/dataplane";
import { NodeAgent } from "./agent";

const schema = z.object({
  LEVELRAIL_SHORT_NAME: z.string().min(1),
  LEVELRAIL_EDGE_IMAGE: z.string().min(1),
  LEVELRAIL_DATAPLANE_VERSION: z.string().min(1),
  LEVELRAIL_NODE_ENGINE_SOCKET: z.string().startsWith("/"),
  LEVELRAIL_AGENT_ENGINE_SOCKET: z.string().startsWith("/"),
  LEVELRAIL_HTTP_PORT: z.coerce.number().int().min(1).max(65535),
  LEVELRAIL_HTTPS_PORT: z.union([z.literal("-"), z.coerce.number().int().min(1).max(65535)]),
  LEVELRAIL_MESH_DNS_PORT: z.coerce.number().int().min(1).max(65534),
  LEVELRAIL_EDGE_VOLUME: z.string().min(1),
  LEVELRAIL_EDGE_HOME: z.string().startsWith("/"),
  LEVELRAIL_NODE_ID: z.string().regex(/^[a-z0-9]{1,64}$/),
  /** The installation's edge feed token: a swarm secret's file (never the token itself in the environment). */
  LEVELRAIL_EDGE_FEED_TOKEN_FILE: z.string().startsWith("/").default(EDGE_FEED_TOKEN_SECRET_FILE),
});
const parsed = schema.safeParse(process.env);
if (!parsed.success) {
  console.error(`the node agent's settings: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  process.exit(1);
}
const env = parsed.data;
const log = (line: string) => console.log(`${new Date().toISOString()} [node ${env.LEVELRAIL_NODE_ID}] ${line}`);
// Caddy's binary in this image: the node's Caddy is made again only when it changes.
const caddyInputs = (() => {
  try {
    return `caddy ${createHash("sha256").update(readFileSync("/usr/bin/caddy")).digest("hex").slice(0, 16)}`;
  } catch {
    return undefined;
  }
})();
let feedToken = "";
try {
  feedToken = readFileSync(env.LEVELRAIL_EDGE_FEED_TOKEN_FILE, "utf8").trim();
} catch {
  // said below
}
if (!feedToken) {
  console.error(`the node agent's settings: no edge feed token in ${env.LEVELRAIL_EDGE_FEED_TOKEN_FILE} (the service's swarm secret; run \`npm start\` or \`levelrail install\` on the manager again)`);
  process.exit(1);
}
const agent = new NodeAgent(new Docker({ socketPath: env.LEVELRAIL_AGENT_ENGINE_SOCKET }), {
  shortName: env.LEVELRAIL_SHORT_NAME,
  image: env.LEVELRAIL_EDGE_IMAGE,
  version: env.LEVELRAIL_DATAPLANE_VERSION,
  hostSocket: env.LEVELRAIL_NODE_ENGINE_SOCKET,
  socket: env.LEVELRAIL_AGENT_ENGINE_SOCKET,
  httpPort: env.LEVELRAIL_HTTP_PORT,
  httpsPort: env.LEVELRAIL_HTTPS_PORT === "-" ? null : env.LEVELRAIL_HTTPS_PORT,
  meshPort: env.LEVELRAIL_MESH_DNS_PORT,
  volume: env.LEVELRAIL_EDGE_VOLUME,
  home: env.LEVELRAIL_EDGE_HOME,
  nodeId: env.LEVELRAIL_NODE_ID,
  feedToken,
  ...(caddyInputs ? { caddyInputs } : {}),
  log,
});
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    // The node's edge keeps running: only the agent goes.
    log(`${signal}: stopping (the node's edge keeps serving)`);
    agent.stop();
    process.exit(0);
  });
}
log(`node agent ${env.LEVELRAIL_DATAPLANE_VERSION} starting`);
await agent.run();
