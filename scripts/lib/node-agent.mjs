// On a swarm manager with an installation registry (LEVELRAIL_SWARM_REGISTRY), `npm start` runs the
// node agent (apps/dataplane/src/agent.ts) as a global swarm service on every other node: each runs
// its node's own edge (holder, Caddy, both mesh DNS replicas) as standalone containers its engine
// supervises, a copy of the manager's, so any node's Caddy serves every domain (docs/operating/nodes-and-swarm.md#the-data-plane-on-every-node). The
// agent's image (node, the data plane, the agent and Caddy) is built here and pushed to the
// registry; the service names it by digest, so every node runs the same bytes.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BUNDLES, bundle } from "./bundle.mjs";
import { caddyEntries } from "./caddy.mjs";
import { LABELS, docker } from "./containers.mjs";
import { BASE_ENTRIES, ensureImage, hostFile, inputsHash, linkedLibraries } from "./images.mjs";
import { repoRoot } from "./paths.mjs";
import { log } from "./util.mjs";

const NODE = process.execPath;
/** Where the agent reaches its node's engine (the socket's folder: a restarted dockerd makes a new socket file). */
const AGENT_ENGINE_DIR = "/run/levelrail-engine";
/** The edge's state on each node: a named volume, mounted at this path in the agent and the edge's containers. */
export const NODE_EDGE_HOME = "/var/lib/levelrail-edge";
// The launcher is plain JavaScript: these names are also in @levelrail/spec/dataplane, and
// scripts/lib/names.test.ts holds the two to the same values.
export const nodeAgentName = (short) => `${short}-node-agent`;
export const nodeEdgeVolume = (short) => `${short}-node-edge`;
export const controlNetworkName = (short) => `${short}-control`;
export const edgeFeedHost = (short) => `${short}-edge-feed`;
// Also in @levelrail/spec/dataplane (EDGE_FEED_TOKEN_FILE, EDGE_FEED_TOKEN_SECRET_FILE).
export const FEED_TOKEN_FILE = "edge-feed.token";
export const FEED_TOKEN_SECRET_FILE = "/run/secrets/edge-feed-token";

/**
 * The installation's edge feed token, `<data dir>/dataplane/edge-feed.token` (made once, 256
 * random bits, mode 0600): the manager's mesh DNS refuses every request to the feed without it,
 * and the node agents get it as a swarm secret (never in their environment). One token for the
 * installation, not one per node: every agent reads the same feed.
 */
export function ensureFeedToken(dataDir) {
  const dir = join(dataDir, "dataplane");
  const file = join(dir, FEED_TOKEN_FILE);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
    } catch (err) {
      if (err?.code !== "EEXIST") throw err;
    }
  }
  return readFileSync(file, "utf8").trim();
}

/** The swarm secret holding `token`, named after its hash (a secret cannot change: a new token is a new secret). */
async function ensureFeedTokenSecret(short, token) {
  const name = `${short}-edge-feed-${createHash("sha256").update(token).digest("hex").slice(0, 12)}`;
  const listed = await docker().listSecrets({ filters: JSON.stringify({ name: [name] }) });
  const found = listed.find((s) => s.Spec?.Name === name);
  if (found) return { id: found.ID, name };
  const labels = { [LABELS.managed]: "true", "levelrail.instance": short, "levelrail.role": "edge-feed-token" };
  const created = await docker().createSecret({ Name: name, Labels: labels, Data: Buffer.from(token, "utf8").toString("base64") });
  return { id: created.id, name };
}

/**
 * The control overlay (the manager's edge and the agents only), made once; answers its name.
 * `encrypted`: IPsec between the nodes (where the kernel has it; one made before stays as it is).
 */
export async function ensureControlNetwork(short, { encrypted = false } = {}) {
  const name = controlNetworkName(short);
  const listed = await docker().listNetworks({ filters: JSON.stringify({ name: [name] }) });
  if (listed.some((n) => n.Name === name)) return name;
  await docker()
    .createNetwork({ Name: name, Driver: "overlay", Attachable: true, CheckDuplicate: true, ...(encrypted ? { Options: { encrypted: "" } } : {}), Labels: { [LABELS.managed]: "true", "levelrail.instance": short, "levelrail.role": "control" } })
    .catch((err) => {
      if (err?.statusCode !== 409) throw err;
    });
  return name;
}

/** `levelrail/edge-node:<hash>`: node, the libraries it links, the data plane, the agent and Caddy. */
async function edgeNodeImage(version) {
  const outs = [BUNDLES.dataplane.outfile, BUNDLES.agent.outfile].map((o) => join(repoRoot, o));
  await bundle({ entry: join(repoRoot, BUNDLES.dataplane.entry), outfile: outs[0] });
  await bundle({ entry: join(repoRoot, BUNDLES.agent.entry), outfile: outs[1] });
  const dockerfile = ["FROM scratch", "COPY . /", `ENTRYPOINT ["${NODE}", "--enable-source-maps", "/app/dataplane/agent.mjs"]`, "STOPSIGNAL SIGTERM", ""].join("\n");
  const entries = () => {
    const seen = new Set();
    return [
      ...BASE_ENTRIES,
      hostFile(NODE),
      ...linkedLibraries([NODE]),
      hostFile(outs[0], "/app/dataplane/main.mjs"),
      hostFile(`${outs[0]}.map`, "/app/dataplane/main.mjs.map"),
      hostFile(outs[1], "/app/dataplane/agent.mjs"),
      hostFile(`${outs[1]}.map`, "/app/dataplane/agent.mjs.map"),
      ...caddyEntries(),
    ].filter((e) => (seen.has(e.dest) ? false : (seen.add(e.dest), true)));
  };
  const inputs = inputsHash(dockerfile, entries());
  const hashOf = `${version}-${inputs}`;
  const tag = `levelrail/edge-node:${version}-${inputs.slice(0, 12)}`;
  await ensureImage(docker(), { tag, dockerfile, entries, hashOf, labels: { [LABELS.managed]: "true" }, log });
  return tag;
}

/** Pushes `tag` to the registry; answers `<registry>/<name>@<digest>`. */
async function pushed(tag, registry, auth) {
  const [name, version] = tag.split(":");
  const repo = `${registry}/${name}`;
  await docker().getImage(tag).tag({ repo, tag: version });
  // The engine wants an X-Registry-Auth header even for a registry without a login.
  const stream = await docker().getImage(`${repo}:${version}`).push({ authconfig: auth ?? { serveraddress: registry } });
  const out = await new Promise((resolve, reject) => docker().modem.followProgress(stream, (err, res) => (err ? reject(err) : resolve(res))));
  const bad = out.find((o) => o.error);
  if (bad) throw new Error(`pushing the node agent's image to ${registry}: ${bad.error}`);
  const digest = out.map((o) => o.aux?.Digest).find(Boolean);
  if (!digest) throw new Error(`pushing the node agent's image to ${registry}: the registry sent no digest`);
  return `${repo}:${version}@${digest}`;
}

/** Pure: the agent's global service. */
export function nodeAgentSpec({ short, image, version, managerNodeId, nodeEngineSocket, httpPort, httpsPort, meshPort, feedSecret }) {
  return {
    Name: nodeAgentName(short),
    Labels: { [LABELS.managed]: "true", "levelrail.instance": short, "levelrail.role": "node-agent" },
    TaskTemplate: {
      ContainerSpec: {
        Image: image,
        Env: [
          `LEVELRAIL_SHORT_NAME=${short}`,
          `LEVELRAIL_EDGE_IMAGE=${image}`,
          `LEVELRAIL_DATAPLANE_VERSION=${version}`,
          // Templates: each task gets its own node's values (`{{.Node.ID}}` may be in the socket's path).
          `LEVELRAIL_NODE_ENGINE_SOCKET=${nodeEngineSocket}`,
          `LEVELRAIL_AGENT_ENGINE_SOCKET=${AGENT_ENGINE_DIR}/${nodeEngineSocket.split("/").pop()}`,
          `LEVELRAIL_HTTP_PORT=${httpPort}`,
          `LEVELRAIL_HTTPS_PORT=${httpsPort ?? "-"}`,
          `LEVELRAIL_MESH_DNS_PORT=${meshPort}`,
          `LEVELRAIL_EDGE_VOLUME=${nodeEdgeVolume(short)}`,
          `LEVELRAIL_EDGE_HOME=${NODE_EDGE_HOME}`,
          "LEVELRAIL_NODE_ID={{.Node.ID}}",
          `LEVELRAIL_EDGE_FEED_TOKEN_FILE=${FEED_TOKEN_SECRET_FILE}`,
        ],
        // The feed's token: a file in the task only (tmpfs), readable by root alone.
        Secrets: [{ SecretID: feedSecret.id, SecretName: feedSecret.name, File: { Name: FEED_TOKEN_SECRET_FILE.split("/").pop(), UID: "0", GID: "0", Mode: 0o400 } }],
        Mounts: [
          { Type: "bind", Source: dirname(nodeEngineSocket), Target: AGENT_ENGINE_DIR },
          { Type: "volume", Source: nodeEdgeVolume(short), Target: NODE_EDGE_HOME },
        ],
        Labels: { [LABELS.managed]: "true", "levelrail.instance": short, "levelrail.role": "node-agent" },
        StopGracePeriod: 5_000_000_000,
      },
      // The manager runs its own edge (`npm start`).
      Placement: { Constraints: [`node.id!=${managerNodeId}`] },
      RestartPolicy: { Condition: "any", Delay: 2_000_000_000 },
      Networks: [{ Target: controlNetworkName(short) }],
      LogDriver: { Name: "json-file", Options: { "max-size": "10m", "max-file": "3" } },
    },
    Mode: { Global: {} },
  };
}

/**
 * The agents run this version on every other node: the image built and pushed, the global service
 * made or updated (its tasks replaced one node at a time; each node's edge keeps serving meanwhile).
 */
export async function ensureNodeAgents({ dataDir, short, version, registry, registryAuth = null, nodeEngineSocket = "/var/run/docker.sock", httpPort, httpsPort, meshPort }) {
  const info = await docker().info();
  const image = await pushed(await edgeNodeImage(version), registry, registryAuth);
  const feedSecret = await ensureFeedTokenSecret(short, ensureFeedToken(dataDir));
  const spec = nodeAgentSpec({ short, image, version, managerNodeId: info.Swarm.NodeID, nodeEngineSocket, httpPort, httpsPort, meshPort, feedSecret });
  const inputs = createHash("sha256").update(JSON.stringify(spec)).digest("hex").slice(0, 16);
  spec.Labels["levelrail.edge.inputs"] = inputs;
  const name = nodeAgentName(short);
  const existing = await docker()
    .getService(name)
    .inspect()
    .catch((err) => {
      if (err?.statusCode === 404) return null;
      throw err;
    });
  const auth = registryAuth ?? { serveraddress: registry };
  if (!existing) {
    await docker().createService(auth, spec);
    log(`node agents: started on every other node of the swarm (${image})`);
  } else if (existing.Spec.Labels?.["levelrail.edge.inputs"] !== inputs) {
    await docker().getService(existing.ID).update({ ...spec, version: existing.Version.Index, authconfig: auth });
    log(`node agents: updated (${image})`);
  }
  return name;
}
