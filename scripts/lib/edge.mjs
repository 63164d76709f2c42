// On a swarm manager, `npm start` runs the node's ingress as the edge namespace
// (packages/docker/src/swarm/edge.ts, bundled and loaded here): a holder container owning a network
// namespace with the ingress ports published, Caddy in it with its admin API on a unix socket, and
// both mesh DNS replicas in it (so Caddy asks them on its loopback, as on one engine). The worker
// finds the edge and runs releases as swarm services (apps/worker/src/swarm-mode.ts); the holder
// joins each app's overlay. A host-network Caddy of an earlier start is removed first (its ports):
// domains pause until the worker loads the ingress config into the edge's Caddy.
import { join } from "node:path";
import { BUNDLES, bundle } from "./bundle.mjs";
import { caddyImage, ensureCaddyBinary } from "./caddy.mjs";
import { ROLES, docker, dockerSocket, findOwn, isRunning, stop, stopAndRemove } from "./containers.mjs";
import { dataPlaneVersion, ensureDataPlane, meshDnsImage } from "./dataplane.mjs";
import { repoRoot } from "./paths.mjs";
import { edgeFeedHost, ensureControlNetwork, ensureFeedToken, ensureNodeAgents } from "./node-agent.mjs";
import { log } from "./util.mjs";

/** Whether the engine is a swarm manager (the only kind the edge is for). */
export async function isSwarmManager() {
  const info = await docker().info();
  return info.Swarm?.LocalNodeState === "active" && info.Swarm?.ControlAvailable === true;
}

/** Caddy's folder on the host for the edge: its state, config and admin socket. */
export const edgeCaddyHome = (dataDir) => join(dataDir, "edge-caddy");

/**
 * The edge and its mesh DNS replicas run as this code asks; resolves to the edge's holder name.
 * `nodeAgents` (an installation registry: `{ registry, registryAuth?, nodeEngineSocket? }`): every
 * other node runs an edge of its own too (scripts/lib/node-agent.mjs), fed from this one's mesh DNS
 * over the control overlay.
 */
export async function ensureSwarmEdge({ dataDir, short, httpPort, httpsPort, port, nodeAgents = null }) {
  const out = join(repoRoot, BUNDLES.edge.outfile);
  await bundle({ entry: join(repoRoot, BUNDLES.edge.entry), outfile: out });
  const edge = await import(out);
  for (const c of await findOwn(short, ROLES.ingress)) {
    log(`this engine is a swarm manager: Caddy moves from the host network (${c.Name.slice(1)}) into the edge namespace; domains pause until the worker loads their config there`);
    await stopAndRemove(c);
  }
  await ensureCaddyBinary();
  const version = dataPlaneVersion();
  const [mesh, caddy] = [await meshDnsImage(version), await caddyImage()];
  const caddyHome = edgeCaddyHome(dataDir);
  const made = await edge.ensureEdge(
    docker(),
    { shortName: short, holderImage: { image: mesh, node: process.execPath }, caddyImage: caddy.tag, httpPort, httpsPort, caddyHome, engineSocket: dockerSocket() },
    () => edge.adminSocketAnswers(edge.edgeAdminSocket(caddyHome)),
  );
  if (made.madeHolder) {
    // A new namespace: it joins every app overlay again, so Caddy reaches the tasks that serve now.
    const overlays = await docker().listNetworks({ filters: JSON.stringify({ label: [`levelrail.instance=${short}`, "levelrail.app"], driver: ["overlay"] }) });
    for (const n of overlays) await edge.joinEdge(docker(), short, n.Name);
    if (overlays.length > 0) log(`edge ingress: joined ${overlays.length} app overlay${overlays.length === 1 ? "" : "s"} again`);
  }
  log(`edge ingress ${edge.edgeName(short)}: ${made.madeHolder ? "made" : "adopted"} (HTTP on ${httpPort}${httpsPort === null ? "" : `, HTTPS on ${httpsPort}`}; Caddy's admin API on ${edge.edgeAdminSocket(caddyHome)})`);
  // the feed's token first: the mesh DNS refuses every request to the feed while it has none
  ensureFeedToken(dataDir);
  // Whether this kernel can encrypt overlays (IPsec ESP): the worker makes app and database overlays
  // encrypted when it can, and so is the control overlay made here; doctor says so when it cannot.
  const ipsec = edge.probeOverlayIpsec();
  edge.writeOverlayIpsec(join(dataDir, "dataplane", edge.OVERLAY_IPSEC_FILE), ipsec);
  if (ipsec.supported !== true) log(`overlay networks between the swarm's nodes are not encrypted: ${ipsec.detail}`);
  await ensureDataPlane({ dataDir, port, short, version, edge: edge.edgeName(short) });
  // The control overlay: the mesh DNS serves the node agents the edge feed on its address there.
  const control = await ensureControlNetwork(short, { encrypted: ipsec.supported === true });
  if (await edge.joinEdge(docker(), short, control, [edgeFeedHost(short)])) log(`edge ingress: joined the control overlay ${control} (the node agents read the edge feed there)`);
  if (nodeAgents) {
    await ensureNodeAgents({ dataDir, short, version, httpPort, httpsPort, meshPort: port, ...nodeAgents });
  } else {
    log("this swarm's other nodes run no edge (set LEVELRAIL_SWARM_REGISTRY to the installation's registry): domains are served through this node's Caddy only");
  }
  return edge.edgeName(short);
}

/**
 * `levelrail stop --all` on a swarm manager: stops the edge's Caddy, then its holder (the restart
 * policy leaves them stopped; the next `npm start` starts the holder first, then Caddy and the mesh
 * DNS in its namespace). The apps' tasks keep running.
 */
export async function stopSwarmEdge(short) {
  const stopped = [];
  for (const role of ["edge-caddy", "edge"]) {
    for (const c of await findOwn(short, role)) {
      if (!isRunning(c)) continue;
      await stop(c);
      stopped.push(`${role === "edge" ? "the edge namespace's holder" : "Caddy"} (container ${c.Name.slice(1)})`);
    }
  }
  return stopped;
}
