import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { basename, dirname, join } from "node:path";
import type Docker from "dockerode";
import { statusOf } from "../engine-errors";

// The launcher loads this file bundled: it writes the overlay IPsec probe's answer for the worker.
export { OVERLAY_IPSEC_FILE, probeOverlayIpsec, writeOverlayIpsec } from "./ipsec";

// The ingress of one node of a swarm (docs/operating/nodes-and-swarm.md, issue 26): a pod, as Kubernetes would say. One
// small container, `<short>-edge`, holds a network namespace of its own on a bridge network of this
// engine with the ingress ports published; Caddy runs in that namespace (`container:<short>-edge`)
// and so does the mesh DNS, each a container the engine restarts on its own. The holder is what
// joins each app's overlay network: a standalone container joins a network live (a swarm service
// would be restarted by the update), and every container of the namespace sees the new interface
// at once, so Caddy dials the app's tasks on any node. The holder does nothing, so it never needs a
// restart; Caddy and the mesh DNS restart and upgrade without losing the namespace's networks.
//
// Caddy's admin API listens on a unix socket in a root-only folder of the host, not on an address:
// anything on an overlay the namespace joined could reach an address in it.

export interface EdgeOptions {
  shortName: string;
  /** An image with Node.js at `node` (the data plane's): the holder runs a process that waits. */
  holderImage: { image: string; node: string };
  /** An image with Caddy at /usr/bin/caddy (the installation's Caddy image). */
  caddyImage: string;
  /**
   * What Caddy's container is adopted by (default: the image's name): a node agent's image changes
   * with every data plane version while its Caddy binary does not, so it names the binary's hash
   * and an upgrade keeps the running Caddy.
   */
  caddyInputs?: string;
  /** Host ports the ingress serves on, published from the namespace's 80 and 443 (null: no HTTPS). */
  httpPort: number;
  httpsPort: number | null;
  /** A root-only folder of the host for Caddy's state, its admin socket and its config (bind-mounted at the same path). */
  caddyHome: string;
  /**
   * The engine's unix socket on the host: the holder watches the containers in its namespace through
   * it and starts again one that failed to start (see `EDGE_SUPERVISOR`). Null: it only waits.
   */
  engineSocket?: string | null;
  /**
   * A named volume that holds `caddyHome` (mounted at the folder above it in Caddy's container), in
   * place of the host folder: a node agent's edge (`apps/dataplane/src/agent.ts`), whose own
   * container mounts the same volume. Null: the host folder.
   */
  homeVolume?: { name: string; path: string } | null;
}

/** Where the holder finds the engine's socket folder (the folder: a restarted dockerd makes a new socket file). */
export const ENGINE_DIR = "/run/levelrail-engine";

/**
 * The holder's program. When dockerd starts again (a restart, a reboot), it starts the holder and the
 * containers in the holder's namespace (Caddy, the mesh DNS) at once: one started before the holder
 * runs fails ("cannot join network of a non running container") and the engine does not try again.
 * Every second the holder starts again each container of its namespace that is not running and
 * whose last start failed (the engine's `State.Error`; one an operator stopped has none).
 * Node's built-ins only: it runs in the data plane's image.
 */
export const EDGE_SUPERVISOR = `
const http = require("node:http");
const sock = process.env.LEVELRAIL_ENGINE_SOCKET, me = process.env.LEVELRAIL_EDGE, short = process.env.LEVELRAIL_SHORT_NAME;
const call = (method, path) => new Promise((done) => {
  const req = http.request({ socketPath: sock, method, path, timeout: 5000 }, (res) => {
    let body = ""; res.setEncoding("utf8"); res.on("data", (c) => (body += c)); res.on("end", () => done({ status: res.statusCode, body }));
  });
  req.on("error", () => done(null)); req.on("timeout", () => req.destroy()); req.end();
});
let myId = "";
async function tick() {
  if (!myId) { const r = await call("GET", "/containers/" + encodeURIComponent(me) + "/json"); if (r && r.status === 200) myId = JSON.parse(r.body).Id; }
  const filters = encodeURIComponent(JSON.stringify({ label: ["levelrail.instance=" + short] }));
  const list = await call("GET", "/containers/json?all=1&filters=" + filters);
  if (!list || list.status !== 200) return;
  for (const c of JSON.parse(list.body)) {
    const mode = (c.HostConfig && c.HostConfig.NetworkMode) || "";
    if (c.State === "running" || (mode !== "container:" + me && (!myId || mode !== "container:" + myId))) continue;
    const i = await call("GET", "/containers/" + c.Id + "/json");
    const state = i && i.status === 200 ? JSON.parse(i.body).State : null;
    if (!state || state.Running || !state.Error) continue;
    const r = await call("POST", "/containers/" + c.Id + "/start");
    console.log(new Date().toISOString() + " " + (c.Names[0] || c.Id) + " had failed to start (" + state.Error + "): started again: " + (r ? r.status : "no answer"));
  }
}
if (sock) setInterval(() => void tick().catch(() => {}), 1000);
else setInterval(() => {}, 2 ** 30);
`;

const SUPERVISOR_HASH = createHash("sha256").update(EDGE_SUPERVISOR).digest("hex").slice(0, 12);

export const EDGE_ROLE = "edge";
export const EDGE_CADDY_ROLE = "edge-caddy";
/** On the edge's Caddy: its folder on the host (its admin socket is there), for the worker to find it. */
export const EDGE_HOME_LABEL = "levelrail.edge.home";
const LOG_CONFIG = { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } };

export const edgeName = (shortName: string) => `${shortName}-edge`;
export const edgeCaddyName = (shortName: string) => `${shortName}-edge-caddy`;
/** The admin socket's path: what the worker's ingress controller talks to (`caddyAdminSocket`). */
export const edgeAdminSocket = (caddyHome: string) => join(caddyHome, "admin.sock");

const labels = (shortName: string, role: string, inputs: string) => ({
  "levelrail.managed": "true",
  "levelrail.instance": shortName,
  "levelrail.role": role,
  "levelrail.edge.inputs": inputs,
});

/** Caddy's admin endpoint on the socket; `localhost` is the Host a client on a unix socket names. */
export function edgeAdminConfig(caddyHome: string): { listen: string; origins: string[] } {
  return { listen: `unix/${edgeAdminSocket(caddyHome)}`, origins: ["localhost"] };
}

/** The bridge network the namespace is on (its published ports go through it). */
export function edgeNetworkBody(shortName: string) {
  // CheckDuplicate: without it the engine makes a second network of the same name, and a container
  // started on that name then finds neither (the swarm is asked for it: "network … not found").
  return { Name: edgeName(shortName), Driver: "bridge", CheckDuplicate: true, Labels: labels(shortName, EDGE_ROLE, "network") };
}

/** Pure: the holder's create options. */
export function edgeHolderOptions(o: EdgeOptions) {
  const ports: Record<string, { HostIp: string; HostPort: string }[]> = { "80/tcp": [{ HostIp: "0.0.0.0", HostPort: String(o.httpPort) }] };
  if (o.httpsPort !== null) ports["443/tcp"] = [{ HostIp: "0.0.0.0", HostPort: String(o.httpsPort) }];
  const socket = o.engineSocket ?? null;
  // Not the image: the holder runs only node and its program, so a new data plane image (an upgrade)
  // keeps the namespace and every overlay it joined; a new program makes it again.
  const inputs = `holder ${SUPERVISOR_HASH} ${o.httpPort} ${o.httpsPort ?? "-"} supervising ${socket ?? "-"}`;
  return {
    name: edgeName(o.shortName),
    Image: o.holderImage.image,
    // Waits, starting again what failed to start in its namespace (SIGTERM ends it: node's default).
    Entrypoint: [o.holderImage.node, "-e", EDGE_SUPERVISOR],
    Cmd: [],
    Env: [
      `LEVELRAIL_EDGE=${edgeName(o.shortName)}`,
      `LEVELRAIL_SHORT_NAME=${o.shortName}`,
      ...(socket ? [`LEVELRAIL_ENGINE_SOCKET=${ENGINE_DIR}/${basename(socket)}`] : []),
    ],
    Labels: labels(o.shortName, EDGE_ROLE, inputs),
    ExposedPorts: Object.fromEntries(Object.keys(ports).map((p) => [p, {}])),
    HostConfig: {
      NetworkMode: edgeName(o.shortName),
      PortBindings: ports,
      ...(socket ? { Binds: [`${dirname(socket)}:${ENGINE_DIR}:ro`] } : {}),
      RestartPolicy: { Name: "unless-stopped" },
      LogConfig: LOG_CONFIG,
      SecurityOpt: ["no-new-privileges"],
    },
  };
}

/** Pure: Caddy's create options, in the holder's namespace, resuming its last config after a restart. */
export function edgeCaddyOptions(o: EdgeOptions) {
  const home = o.caddyHome;
  return {
    name: edgeCaddyName(o.shortName),
    Image: o.caddyImage,
    Entrypoint: ["/usr/bin/caddy"],
    Cmd: ["run", "--config", join(home, "admin.json"), "--resume"],
    Env: [`XDG_DATA_HOME=${home}`, `XDG_CONFIG_HOME=${home}`, `HOME=${home}`],
    Labels: { ...labels(o.shortName, EDGE_CADDY_ROLE, o.caddyInputs ?? o.caddyImage), [EDGE_HOME_LABEL]: home },
    StopSignal: "SIGTERM",
    HostConfig: {
      NetworkMode: `container:${edgeName(o.shortName)}`,
      Binds: [o.homeVolume ? `${o.homeVolume.name}:${o.homeVolume.path}` : `${home}:${home}`],
      RestartPolicy: { Name: "unless-stopped" },
      LogConfig: LOG_CONFIG,
      SecurityOpt: ["no-new-privileges"],
    },
  };
}

type Created = { Id: string; Name: string; State: { Running: boolean }; Config: { Labels: Record<string, string> | null } };

/** The container named `name` as it runs now: adopted when its inputs label matches, else made again. */
export async function ensureEdgeContainer(docker: Docker, options: { name: string; Labels: Record<string, string> }): Promise<{ id: string; made: boolean }> {
  const existing = (await docker
    .getContainer(options.name)
    .inspect()
    .catch((err: unknown) => {
      if (statusOf(err) === 404) return null;
      throw err;
    })) as Created | null;
  if (existing && existing.Config.Labels?.["levelrail.edge.inputs"] === options.Labels["levelrail.edge.inputs"]) {
    if (!existing.State.Running) await docker.getContainer(existing.Id).start();
    return { id: existing.Id, made: false };
  }
  if (existing) await docker.getContainer(existing.Id).remove({ force: true });
  const c = await docker.createContainer(options as Docker.ContainerCreateOptions);
  await c.start();
  return { id: c.id, made: true };
}

/** The edge's bridge network, one of that name: extra ones an earlier version made (none attached) go. */
async function ensureEdgeNetwork(docker: Docker, shortName: string): Promise<void> {
  const name = edgeName(shortName);
  const listed = (await docker.listNetworks({ filters: JSON.stringify({ name: [name] }) } as never)) as unknown as { Id: string; Name: string }[];
  const same = listed.filter((n) => n.Name === name);
  if (same.length === 0) {
    await docker.createNetwork(edgeNetworkBody(shortName) as Docker.NetworkCreateOptions).catch((err: unknown) => {
      if (statusOf(err) !== 409) throw err;
    });
    return;
  }
  if (same.length === 1) return;
  const inspected = await Promise.all(same.map(async (n) => ({ id: n.Id, used: Object.keys(((await docker.getNetwork(n.Id).inspect()) as { Containers?: object }).Containers ?? {}).length > 0 })));
  const keep = inspected.find((n) => n.used) ?? inspected[0]!;
  for (const n of inspected) if (n !== keep && !n.used) await docker.getNetwork(n.id).remove().catch(() => {});
}

/**
 * The node's ingress runs as `o` asks: the bridge network, the holder and Caddy (each adopted when
 * it runs the same inputs, made again otherwise). A new holder is a new namespace: Caddy is made
 * again in it, and the caller joins it to every app network again (`joinEdge`). Resolves once
 * Caddy's admin socket answers.
 */
export async function ensureEdge(docker: Docker, o: EdgeOptions, answers: () => Promise<boolean>, timeoutMs = 20_000): Promise<{ holder: string; caddy: string; madeHolder: boolean }> {
  mkdirSync(o.caddyHome, { recursive: true, mode: 0o700 });
  writeFileSync(join(o.caddyHome, "admin.json"), `${JSON.stringify({ admin: edgeAdminConfig(o.caddyHome) }, null, 2)}\n`, { mode: 0o600 });
  await ensureEdgeNetwork(docker, o.shortName);
  const holder = await ensureEdgeContainer(docker, edgeHolderOptions(o));
  const caddyOptions = edgeCaddyOptions(o);
  // A new namespace: Caddy's container still points at the old one.
  if (holder.made) await docker.getContainer(caddyOptions.name).remove({ force: true }).catch(() => {});
  const caddy = await ensureEdgeContainer(docker, caddyOptions);
  const deadline = Date.now() + timeoutMs;
  while (!(await answers())) {
    if (Date.now() > deadline) {
      const logs = await docker.getContainer(caddy.id).logs({ stdout: true, stderr: true, tail: 20 }).catch(() => Buffer.from(""));
      throw new Error(`Caddy (${caddyOptions.name}) did not answer on its admin socket within ${timeoutMs / 1000} s; its last lines:\n${logs.toString("utf8")}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { holder: holder.id, caddy: caddy.id, madeHolder: holder.made };
}

/** One request to Caddy's admin API on a unix socket (an edge's): its status and body. */
export function adminSocketRequest(socketPath: string, method: "GET" | "POST", path: string, body: string | null, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: { Host: "localhost", ...(body === null ? {} : { "Content-Type": "application/json" }) }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`Caddy's admin socket ${socketPath} did not answer ${method} ${path} within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

/** Whether Caddy answers on its admin socket (what `ensureEdge` waits for). */
export function adminSocketAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, method: "GET", path: "/config/", headers: { Host: "localhost" }, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}

/**
 * Joins the node's ingress namespace to an app's network, live (`aliases`: more names for it
 * there); one it already joined is left as it is.
 */
export async function joinEdge(docker: Docker, shortName: string, network: string, aliases: readonly string[] = []): Promise<boolean> {
  try {
    await docker.getNetwork(network).connect({ Container: edgeName(shortName), ...(aliases.length > 0 ? { EndpointConfig: { Aliases: [...aliases] } } : {}) });
    return true;
  } catch (err) {
    // Joined before: 409 "… is already attached to network …" (older engines: 403 "endpoint … already exists").
    const status = statusOf(err);
    if ((status === 409 || status === 403) && /already (attached|exists)/i.test(String((err as { json?: { message?: string } }).json?.message ?? err))) return false;
    throw err;
  }
}

/** The edge namespace's address on `network` (where its mesh DNS answers that app's tasks); null before it joined. */
export async function edgeAddress(docker: Docker, shortName: string, network: string): Promise<string | null> {
  try {
    const info = (await docker.getContainer(edgeName(shortName)).inspect()) as { NetworkSettings?: { Networks?: Record<string, { IPAddress?: string }> } };
    return info.NetworkSettings?.Networks?.[network]?.IPAddress || null;
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}
