// The engine calls the launcher makes for the data plane's own containers (Caddy, the mesh DNS):
// find them by label, create them under the engine's restart policy, stop and remove them. Every
// container is checked by its labels after it is inspected, never trusted from its name.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import Docker from "dockerode";

export const LABELS = {
  managed: "levelrail.managed",
  instance: "levelrail.instance",
  role: "levelrail.role",
  version: "levelrail.version",
  replica: "levelrail.replica",
  /** Where a mesh DNS replica's sockets are: `host`, or the edge namespace's holder (a swarm manager's). */
  network: "levelrail.network",
};
export const ROLES = { ingress: "ingress", meshDns: "mesh-dns" };

let client = null;
/** The engine of DOCKER_HOST (or the local socket), through dockerode. */
export function docker() {
  client ??= new Docker();
  return client;
}

/** The unix socket the engine listens on, when it is one (to mount into the mesh DNS). */
export function dockerSocket() {
  const host = process.env.DOCKER_HOST;
  if (!host) return "/var/run/docker.sock";
  return host.startsWith("unix://") ? host.slice("unix://".length) : null;
}

/** The labels every data-plane container of installation `short` carries. */
export const ownLabels = (short, role, extra = {}) => ({ [LABELS.managed]: "true", [LABELS.instance]: short, [LABELS.role]: role, ...extra });

/** Whether `labels` are those of installation `short`'s container of role `role`. */
export const owned = (labels, short, role) => labels?.[LABELS.managed] === "true" && labels?.[LABELS.instance] === short && labels?.[LABELS.role] === role;

/** Inspected containers of installation `short` with role `role` (and `extra` labels), running or not. */
export async function findOwn(short, role, extra = {}) {
  const filters = { label: Object.entries(ownLabels(short, role, extra)).map(([k, v]) => `${k}=${v}`) };
  const list = await docker().listContainers({ all: true, filters });
  const out = [];
  for (const c of list) {
    const info = await docker()
      .getContainer(c.Id)
      .inspect()
      .catch(() => null);
    if (info && owned(info.Config.Labels, short, role)) out.push(info);
  }
  return out;
}

/** Whether an inspected container is running (and not between restarts). */
export const isRunning = (info) => info.State.Running && !info.State.Restarting;

/** Host-network container options shared by the data plane's containers. */
export function dataPlaneHostConfig({ binds, pidHost = false, networkMode = "host" }) {
  return {
    NetworkMode: networkMode,
    ...(pidHost ? { PidMode: "host" } : {}),
    RestartPolicy: { Name: "unless-stopped" },
    Binds: binds,
    LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
    SecurityOpt: ["no-new-privileges"],
  };
}

/** Creates and starts a container; returns it inspected. */
export async function createAndStart(options) {
  const c = await docker().createContainer(options);
  await c.start();
  return c.inspect();
}

/** Starts a stopped container of ours. */
export async function start(info) {
  await docker()
    .getContainer(info.Id)
    .start()
    .catch((err) => {
      if (err.statusCode !== 304) throw err; // 304: already started
    });
  return docker().getContainer(info.Id).inspect();
}

/**
 * Stops a container (SIGTERM, then SIGKILL after `graceSeconds`): the restart policy leaves it
 * stopped. `engine`: another engine than DOCKER_HOST's (`levelrail install` names its socket).
 */
export async function stop(info, graceSeconds = 10, engine = docker()) {
  await engine
    .getContainer(info.Id)
    .stop({ t: graceSeconds })
    .catch((err) => {
      if (err.statusCode !== 304 && err.statusCode !== 404) throw err;
    });
}

/** Stops and removes a container (gone already: done). */
export async function stopAndRemove(info, graceSeconds = 10, engine = docker()) {
  await stop(info, graceSeconds, engine);
  await engine
    .getContainer(info.Id)
    .remove({ force: true })
    .catch((err) => {
      if (err.statusCode !== 404) throw err;
    });
}

/** Socket inodes of the UDP sockets bound on `port` (any address), from /proc/net/udp{,6}. */
function udpInodes(port, pid) {
  const inodes = new Set();
  // The sockets of `pid`'s network namespace (the host's for a host-network container, its own for one in a namespace of its own).
  for (const file of [`/proc/${pid}/net/udp`, `/proc/${pid}/net/udp6`]) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && Number.parseInt(f[1].split(":")[1], 16) === port) inodes.add(f[9]);
    }
  }
  return inodes;
}

/**
 * Whether process `pid` (host pid namespace; the data plane runs on the host network) holds a UDP
 * socket bound on `port`: how the launcher knows a new mesh DNS receives queries before it stops
 * the old one.
 */
export function holdsUdpPort(pid, port) {
  const inodes = udpInodes(port, pid);
  if (!inodes.size) return false;
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: "utf8" }) ?? "");
      if (m && inodes.has(m[1])) return true;
    }
  } catch {
    return false; // gone, or not ours to read
  }
  return false;
}
