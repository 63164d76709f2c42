// The mesh DNS (apps/dataplane) as two replica containers `<short>-mesh-dns-<replica>-<version>`
// on the host network (and its pid namespace: each replica kills a sibling that froze), under the
// engine's restart policy: a killed one is back in about a second, and its sibling answers Caddy
// meanwhile. Replica 0 serves on LEVELRAIL_MESH_DNS_PORT, replica 1 on the port after it. The
// image is built here `FROM scratch` from the host's node binary and the data plane compiled to
// one JavaScript file, tagged with the data plane's code version. A start adopts replicas of the
// current version; a newer version replaces each replica in turn: the new one binds its UDP
// sockets beside the old one's (the kernel hands queries to the newest), then the old one stops.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { bundle } from "./bundle.mjs";
import { LABELS, ROLES, createAndStart, dataPlaneHostConfig, docker, dockerSocket, findOwn, holdsUdpPort, isRunning, ownLabels, start, stop, stopAndRemove } from "./containers.mjs";
import { BASE_ENTRIES, ensureImage, hostFile, linkedLibraries } from "./images.mjs";
import { onShutdown } from "./lifecycle.mjs";
import { repoRoot } from "./paths.mjs";
import { Fatal, cmdline, log, pidAlive, stopPid, waitFor } from "./util.mjs";

export const dataPlaneDir = (dataDir) => join(dataDir, "dataplane");
/** Where an earlier version recorded the pid of the mesh DNS process it started. */
const legacyPidFile = (dataDir) => join(dataPlaneDir(dataDir), "dns.pid");
export const REPLICAS = [0, 1];
export const replicaPort = (port, replica) => port + replica;

/** The files whose code the mesh DNS (and its container) is made of: a change in any of them is a new version. */
const SOURCES = [
  "scripts/lib/dataplane.mjs",
  "apps/dataplane/src",
  "packages/spec/src/dataplane.ts",
  "packages/spec/src/naming.ts",
  "packages/docker/src/index.ts",
  "packages/docker/src/swarm/edge.ts",
  "packages/config/src/env.ts",
];
const NODE = process.execPath;
/** Where a replica finds the engine's socket folder. */
const ENGINE_DIR = "/run/levelrail-engine";

/** A short hash of the data plane's code and the node binary it runs on. */
export function dataPlaneVersion() {
  const h = createHash("sha256");
  const add = (rel) => {
    const abs = join(repoRoot, rel);
    if (!existsSync(abs)) return;
    if (abs.endsWith(".ts") || abs.endsWith(".mjs")) {
      h.update(rel).update(readFileSync(abs));
      return;
    }
    for (const e of readdirSync(abs).sort()) if (!e.endsWith(".test.ts")) add(join(rel, e));
  };
  for (const s of SOURCES) add(s);
  return h.digest("hex").slice(0, 12);
}

const DOCKERFILE = ["FROM scratch", "COPY . /", `ENTRYPOINT ["${NODE}", "--enable-source-maps", "/app/dataplane/main.mjs"]`, "STOPSIGNAL SIGTERM", ""].join("\n");

/** `levelrail/mesh-dns:<version>`: node, the libraries it links, and the compiled data plane. */
export async function meshDnsImage(version) {
  const tag = `levelrail/mesh-dns:${version}`;
  const out = join(repoRoot, "apps", "dataplane", "dist", "main.mjs");
  const node = hostFile(NODE);
  const st = statSync(NODE);
  const hashOf = `${version}-${process.version}-${st.size}-${st.mtimeMs}`;
  let built = false;
  const entries = () => {
    if (!built) throw new Error("bundle first");
    return [...BASE_ENTRIES, node, ...linkedLibraries([NODE]), hostFile(out, "/app/dataplane/main.mjs"), hostFile(`${out}.map`, "/app/dataplane/main.mjs.map")];
  };
  try {
    const have = await docker().getImage(tag).inspect();
    if (have.Config?.Labels?.["levelrail.image.inputs"] === hashOf) return tag;
  } catch {
    // build it
  }
  await bundle({ entry: join(repoRoot, "apps", "dataplane", "src", "main.ts"), outfile: out });
  built = true;
  await ensureImage(docker(), { tag, dockerfile: DOCKERFILE, entries, hashOf, labels: { [LABELS.managed]: "true" }, log });
  return tag;
}

/** The same, asked from inside the replica's own container (its loopback is the edge namespace's, not the host's). */
async function healthInside(id, port) {
  try {
    const exec = await docker()
      .getContainer(id)
      .exec({ Cmd: [NODE, "-e", "fetch(`http://127.0.0.1:${process.argv[1]}/healthz`).then((r) => r.text()).then((t) => process.stdout.write(t), () => {})", String(port)], AttachStdout: true, AttachStderr: false });
    const stream = await exec.start({ hijack: true, stdin: false });
    const out = [];
    await new Promise((resolve, reject) => {
      docker().modem.demuxStream(stream, { write: (c) => out.push(c) }, { write: () => {} });
      stream.on("end", resolve);
      stream.on("error", reject);
    });
    const text = Buffer.concat(out.map((c) => Buffer.from(c))).toString("utf8");
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** What the mesh DNS on `port` says of itself, or null when nothing answers. */
export async function dataPlaneHealth(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

function replicaContainer({ short, dataDir, port, replica, version, image, env, edge }) {
  // The socket's folder, not the socket file: a dockerd restart makes a new socket file, and with
  // live-restore the replica keeps running; a mount of the old file would leave it talking to nothing.
  const socket = dockerSocket();
  const binds = [`${dataDir}:${dataDir}`, ...(socket ? [`${dirname(socket)}:${ENGINE_DIR}`] : [])];
  const vars = {
    LEVELRAIL_DATA_DIR: dataDir,
    LEVELRAIL_SHORT_NAME: short,
    LEVELRAIL_MESH_DNS_PORT: String(port),
    LEVELRAIL_MESH_DNS_REPLICA: String(replica),
    LEVELRAIL_DATAPLANE_VERSION: version,
    LEVELRAIL_DATAPLANE_SUPERVISOR: "engine",
    ...(socket ? { DOCKER_HOST: `unix://${join(ENGINE_DIR, basename(socket))}` } : process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
    ...env,
  };
  return {
    name: `${short}-mesh-dns-${replica}-${version}${edge ? "-edge" : ""}`,
    Image: image,
    Env: Object.entries(vars).map(([k, v]) => `${k}=${v}`),
    Labels: ownLabels(short, ROLES.meshDns, { [LABELS.version]: version, [LABELS.replica]: String(replica), [LABELS.network]: edge ?? "host" }),
    // On a swarm manager, in the edge ingress's namespace (scripts/lib/edge.mjs): Caddy asks it on that loopback.
    HostConfig: dataPlaneHostConfig({ binds, pidHost: true, ...(edge ? { networkMode: `container:${edge}` } : {}) }),
  };
}

/** The mesh DNS process an earlier version started detached (dns.pid), if it still runs. */
function legacyPid(dataDir) {
  const file = legacyPidFile(dataDir);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, "utf8").trim());
  return pidAlive(pid) && cmdline(pid).join(" ").includes("dataplane") ? pid : null;
}

/** Replaces (or starts) one replica; `old` are its containers of other versions, `legacy` a pid to retire after it. */
async function startReplica(o, replica, old, legacy) {
  const port = replicaPort(o.port, replica);
  const created = await createAndStart(replicaContainer({ ...o, replica }));
  const name = created.Name.slice(1);
  // Its UDP sockets bound beside the old one's: from now on the kernel hands it the queries.
  const bound = await waitFor(
    async () => {
      const info = await docker().getContainer(created.Id).inspect();
      if (!info.State.Running && !info.State.Restarting) throw new Fatal(`the mesh DNS container ${name} exited (${info.State.ExitCode}); see \`docker logs ${name}\``);
      return info.State.Pid > 0 && holdsUdpPort(info.State.Pid, port);
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  if (!bound) throw new Fatal(`the mesh DNS container ${name} did not bind 127.0.0.1:${port} within 30 s; see \`docker logs ${name}\``);
  for (const c of old) await stopAndRemove(c);
  if (legacy) {
    await stopPid(legacy, "the mesh DNS process");
    rmSync(legacyPidFile(o.dataDir), { force: true });
  }
  const up = await waitFor(async () => (await (o.edge ? healthInside(created.Id, port) : dataPlaneHealth(port)))?.version === o.version, { timeoutMs: 30_000, intervalMs: 100 });
  if (!up) throw new Fatal(`the mesh DNS container ${name} did not answer on 127.0.0.1:${port} within 30 s; see \`docker logs ${name}\``);
  return created;
}

/**
 * Both mesh DNS replicas answer with this code's version: adopted when they do, started (or a
 * stopped one restarted) when missing, replaced one at a time when older. `attached` (tests):
 * fresh containers, removed at shutdown.
 */
export async function ensureDataPlane({ dataDir, port, short, env = {}, attached = false, version = dataPlaneVersion(), edge = null }) {
  mkdirSync(dataPlaneDir(dataDir), { recursive: true });
  const image = await meshDnsImage(version);
  const o = { short, dataDir, port, version, image, env, edge };
  const legacy = legacyPid(dataDir);
  const mine = [];
  for (const replica of [...REPLICAS].reverse()) {
    const all = await findOwn(short, ROLES.meshDns, { [LABELS.replica]: String(replica) });
    // Adopted only where it should be: on the host network, or in the edge namespace (a replica of an earlier version has no label: the host's).
    let current = attached ? undefined : all.find((c) => c.Config.Labels[LABELS.version] === version && (c.Config.Labels[LABELS.network] ?? "host") === (edge ?? "host"));
    const old = all.filter((c) => c !== current);
    if (current) {
      for (const c of old) await stopAndRemove(c);
      if (!isRunning(current)) current = await start(current);
      log(`mesh DNS replica ${replica} (${current.Name.slice(1)}, version ${version}): adopted`);
    } else {
      if (old.length && !attached) log(`mesh DNS replica ${replica} runs ${old.map((c) => c.Config.Labels[LABELS.version]).join(", ")}; starting ${version} beside it to take over`);
      current = await startReplica(o, replica, old, replica === 0 ? legacy : null);
      log(`mesh DNS replica ${replica} serving on 127.0.0.1:${replicaPort(port, replica)} (container ${current.Name.slice(1)})`);
    }
    mine.push(current);
  }
  if (attached) onShutdown("mesh DNS", async () => Promise.all(mine.map((c) => stopAndRemove(c, 5))));
}

/** `levelrail stop --all`: stops the mesh DNS containers (the restart policy leaves them stopped) and an earlier version's process. */
export async function stopMeshDns(dataDir, short) {
  const stopped = [];
  for (const c of await findOwn(short, ROLES.meshDns)) {
    if (!isRunning(c)) continue;
    await stop(c);
    stopped.push(`mesh DNS (container ${c.Name.slice(1)})`);
  }
  const legacy = legacyPid(dataDir);
  if (legacy && (await stopPid(legacy, "the mesh DNS process"))) stopped.push(`mesh DNS (process ${legacy})`);
  return stopped;
}
