import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync, symlinkSync } from "node:fs";
import { join, join as join_ } from "node:path";
import { gunzipSync } from "node:zlib";
import { dockerRuntime } from "@levelrail/docker";
import { Labels } from "@levelrail/spec/naming";
import Docker from "dockerode";
import { ensureTestImage, type TestImage } from "./images";
import {
  type HostLayout,
  bridgeAddress,
  createBridge,
  createNode,
  inNetns,
  interfaceMtu,
  netnsName,
  nodeAddress,
  removeHostNetwork,
  run,
  stopByPidfile,
  unmountUnder,
} from "./swarm-host";
import { waitFor } from "./wait";

export { inNetns, run } from "./swarm-host";

/**
 * A real Docker Swarm on one machine: a bridge, N network namespaces each with a veth to it, and
 * one `dockerd` per namespace (its own data root, exec root, socket and containerd), the first a
 * manager, the others joined as workers through the Docker API; plus a registry on the bridge that
 * every node pulls from. Everything is named after the short name (`lrsw`): namespaces `lrsw1..N`,
 * bridge `lrsw-br`, files under `/tmp/lrsw-swarm`. `startSwarm` first removes what a crashed run
 * left; `stop()` removes it all and may be called twice.
 */
export interface SwarmNode {
  /** 1-based. */
  index: number;
  netns: string;
  /** Its address on the bridge, where the swarm's ports listen. */
  address: string;
  /** `unix://…` of its engine. */
  dockerHost: string;
  docker: Docker;
  /** Runs argv inside its network namespace (e.g. iptables). */
  exec(argv: readonly string[]): Promise<string>;
  /** Its eth0's MTU. */
  mtu(): Promise<number>;
}

export interface SwarmHarness {
  nodes: SwarmNode[];
  manager: SwarmNode;
  /** `host:port` of the registry on the bridge (insecure on every node). */
  registry: string;
  /** Its login when started with `registryLogin` (else null): what a service passes so that every node can pull. */
  registryAuth: { username: string; password: string; serveraddress: string } | null;
  /** Joins node `index` as a worker (when started with `join: false`). */
  join(index: number): Promise<void>;
  /** Cuts node `index` off the others (its veth on the bridge down): to the swarm, a lost node. */
  partition(index: number): Promise<void>;
  /** Brings a partitioned node back. */
  heal(index: number): Promise<void>;
  /**
   * Restarts node `index`'s dockerd (SIGTERM, wait for it to exit, start it again with the same
   * arguments): its containers stop and start again under their restart policies. Answers how long
   * the engine was away (from the signal to its first answer), in ms.
   */
  restartEngine(index: number): Promise<number>;
  /** Builds a test image on the manager, pushes it to the registry and answers its reference there. */
  pushTestImage(img: TestImage): Promise<string>;
  /**
   * Each node's engine socket as a swarm service's mount names it (`{{.Node.ID}}` in the path: every
   * node's socket is under a folder named by its node id), for the node agents (LEVELRAIL_NODE_ENGINE_SOCKET).
   */
  nodeEngineSocket: string;
  /** Timings of the start, in ms. */
  timings: Record<string, number>;
  stop(): Promise<void>;
}

export interface SwarmOptions {
  /** Short name: prefix of namespaces, veths, the bridge and the base dir. Default `lrsw`. */
  shortName?: string;
  /** Node count, 1–9. */
  nodes: number;
  /** `10.231.0` by default: the bridge is .1, node n is .1n. */
  net?: string;
  /** Registry port on the bridge address. Default 56110. */
  registryPort?: number;
  /** The registry wants a login (htpasswd): pulls without one are refused. */
  registryLogin?: boolean;
  /** Join the workers at start (default true). */
  join?: boolean;
  /** eth0 MTU per node index (1-based), default the kernel's 1500. */
  mtu?: Record<number, number>;
  /**
   * Let each engine keep iptables rules (in its own namespace only; the host's tables are not its).
   * Off by default: then a service's VIP (IPVS) and encrypted overlays do not work, dnsrr and plain overlays do.
   */
  iptables?: boolean;
  /** How often workers report to the manager (the engine's default: 5 s); a node is down after a few missed. */
  heartbeatSeconds?: number;
}

/** The address pool overlay networks get their subnets from (apart from the bridge's /24). */
export const SWARM_ADDRESS_POOL = "10.232.0.0/16";

const layoutOf = (o: SwarmOptions): HostLayout => {
  const prefix = o.shortName ?? "lrsw";
  return { prefix, bridge: `${prefix}-br`, net: o.net ?? "10.231.0" };
};
const baseDir = (l: HostLayout) => `/tmp/${l.prefix}-swarm`;
const nodeDir = (l: HostLayout, n: number) => join(baseDir(l), `n${n}`);

/** Removes everything of a harness with this short name: engines, registry, mounts, namespaces, bridge, rule, files. */
export async function cleanupSwarm(opts: Pick<SwarmOptions, "shortName" | "net"> = {}): Promise<void> {
  const l = layoutOf({ nodes: 0, ...opts });
  const base = baseDir(l);
  if (existsSync(base)) {
    const nodes = readdirSync(base).filter((d) => /^n\d+$/.test(d));
    // Leaving the swarm first makes the engines stop their tasks cleanly; a failure (never joined) is fine.
    await Promise.all(
      nodes.map(async (d) => {
        const sock = join(base, d, "d.sock");
        if (existsSync(sock)) await new Docker({ socketPath: sock, timeout: 20_000 }).swarmLeave({ force: true }).catch(() => undefined);
      }),
    );
    await Promise.all(nodes.map((d) => stopByPidfile(join(base, d, "d.pid"))));
    await stopByPidfile(join(base, "registry.pid"), 5_000);
    await unmountUnder(base);
  }
  await removeHostNetwork(l);
  rmSync(base, { recursive: true, force: true });
}

async function startRegistry(l: HostLayout, port: number, login: boolean): Promise<{ addr: string; auth: SwarmHarness["registryAuth"] }> {
  const dir = join(baseDir(l), "registry");
  mkdirSync(dir, { recursive: true });
  const addr = `${bridgeAddress(l)}:${port}`;
  const auth = login ? { username: l.prefix, password: `pw-${randomBytes(8).toString("hex")}`, serveraddress: addr } : null;
  if (auth) writeFileSync(join(dir, "htpasswd"), execFileSync("htpasswd", ["-Bbn", auth.username, auth.password], { encoding: "utf8" }));
  writeFileSync(
    join(dir, "config.yml"),
    [
      "version: 0.1",
      "log: { level: error }",
      `storage: { filesystem: { rootdirectory: ${join(dir, "data")} } }`,
      `http: { addr: ${addr} }`,
      ...(auth ? [`auth: { htpasswd: { realm: ${l.prefix}-swarm, path: ${join(dir, "htpasswd")} } }`] : []),
      "",
    ].join("\n"),
  );
  const log = openSync(join(dir, "registry.log"), "a");
  const proc = spawn("docker-registry", ["serve", join(dir, "config.yml")], { stdio: ["ignore", log, log], detached: true });
  proc.unref();
  writeFileSync(join(baseDir(l), "registry.pid"), String(proc.pid));
  await waitFor("the swarm registry to answer", async () => {
    const res = await fetch(`http://${addr}/v2/`).catch(() => null);
    return res?.status === (auth ? 401 : 200) ? true : undefined;
  }, { timeoutMs: 20_000 });
  return { addr, auth };
}

async function startEngine(l: HostLayout, n: number, registry: string, iptables: boolean): Promise<SwarmNode> {
  const dir = nodeDir(l, n);
  mkdirSync(dir, { recursive: true });
  // Its own (empty) config file: the host's /etc/docker/daemon.json turns on live-restore, which swarm mode refuses.
  writeFileSync(join(dir, "daemon.json"), "{}\n");
  const socket = join(dir, "d.sock");
  const argv = inNetns(netnsName(l, n), [
    "dockerd",
    "--config-file", join(dir, "daemon.json"),
    "--data-root", join(dir, "data"),
    "--exec-root", join(dir, "x"),
    "-H", `unix://${socket}`,
    "--pidfile", join(dir, "d.pid"),
    "--bridge", "none",
    `--iptables=${iptables}`,
    "--insecure-registry", registry,
  ]);
  const log = openSync(join(dir, "dockerd.log"), "a");
  const [cmd, ...args] = argv as [string, ...string[]];
  spawn(cmd, args, { stdio: ["ignore", log, log], detached: true }).unref();
  const docker = new Docker({ socketPath: socket, timeout: 60_000 });
  await waitFor(`dockerd ${n} to answer`, async () => ((await docker.ping().then(() => true, () => false)) ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 200,
    describe: async () => readFileSync(join(dir, "dockerd.log"), "utf8").split("\n").slice(-5).join("\n"),
  });
  return {
    index: n,
    netns: netnsName(l, n),
    address: nodeAddress(l, n),
    dockerHost: `unix://${socket}`,
    docker,
    exec: (a) => run(inNetns(netnsName(l, n), a)),
    mtu: () => interfaceMtu(l, n),
  };
}

/** by-node/<node id> → the node's folder (its socket is d.sock there): what `nodeEngineSocket` names. */
async function linkByNodeId(l: HostLayout, node: SwarmNode): Promise<void> {
  const id = ((await node.docker.info()) as { Swarm?: { NodeID?: string } }).Swarm?.NodeID;
  if (!id) return;
  mkdirSync(join_(baseDir(l), "by-node"), { recursive: true });
  rmSync(join_(baseDir(l), "by-node", id), { force: true });
  symlinkSync(nodeDir(l, node.index), join_(baseDir(l), "by-node", id));
}

/** Builds the harness; see `SwarmHarness`. Must run as root (namespaces, iptables, dockerd). */
export async function startSwarm(opts: SwarmOptions): Promise<SwarmHarness> {
  if (opts.nodes < 1 || opts.nodes > 9) throw new Error("startSwarm: 1–9 nodes");
  const l = layoutOf(opts);
  const timings: Record<string, number> = {};
  const time = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      return await fn();
    } finally {
      timings[what] = Date.now() - t0;
    }
  };
  await time("cleanup", () => cleanupSwarm(opts));
  const stop = () => cleanupSwarm(opts);
  try {
    await time("network", async () => {
      await createBridge(l);
      for (let n = 1; n <= opts.nodes; n++) await createNode(l, n, opts.mtu?.[n]);
    });
    const { addr: registry, auth: registryAuth } = await time("registry", () => startRegistry(l, opts.registryPort ?? 56110, opts.registryLogin === true));
    const nodes = await time("engines", () => Promise.all(Array.from({ length: opts.nodes }, (_, i) => startEngine(l, i + 1, registry, opts.iptables === true))));
    const manager = nodes[0] as SwarmNode;
    await time("init", () =>
      manager.docker.swarmInit({
        ListenAddr: `${manager.address}:2377`,
        AdvertiseAddr: `${manager.address}:2377`,
        DefaultAddrPool: [SWARM_ADDRESS_POOL],
        SubnetSize: 24,
        ...(opts.heartbeatSeconds ? { Spec: { Dispatcher: { HeartbeatPeriod: opts.heartbeatSeconds * 1e9 } } } : {}),
      }),
    );
    const join = async (index: number) => {
      const node = nodes[index - 1];
      if (!node || node === manager) throw new Error(`no worker node ${index}`);
      const info = (await manager.docker.swarmInspect()) as { JoinTokens: { Worker: string } };
      await node.docker.swarmJoin({
        ListenAddr: `${node.address}:2377`,
        AdvertiseAddr: `${node.address}:2377`,
        RemoteAddrs: [`${manager.address}:2377`],
        JoinToken: info.JoinTokens.Worker,
      });
      await linkByNodeId(l, node);
      await waitFor(`node ${index} to be ready`, async () => {
        const list = (await manager.docker.listNodes()) as { Status?: { Addr?: string; State?: string } }[];
        return list.some((x) => x.Status?.Addr === node.address && x.Status.State === "ready") ? true : undefined;
      }, { timeoutMs: 60_000, intervalMs: 200 });
    };
    if (opts.join !== false) await time("join", async () => {
      for (let n = 2; n <= opts.nodes; n++) await join(n);
    });
    for (const node of nodes) await linkByNodeId(l, node);
    return {
      nodeEngineSocket: join_(baseDir(l), "by-node", "{{.Node.ID}}", "d.sock"),
      nodes,
      manager,
      registry,
      registryAuth,
      join,
      timings,
      partition: (index) => run(["ip", "link", "set", `${l.prefix}-v${index}`, "down"]).then(() => undefined),
      heal: (index) => run(["ip", "link", "set", `${l.prefix}-v${index}`, "up"]).then(() => undefined),
      async restartEngine(index) {
        const t0 = Date.now();
        await stopByPidfile(`${nodeDir(l, index)}/d.pid`, 60_000); // (`join` here is the swarm join)
        await startEngine(l, index, registry, opts.iptables === true);
        return Date.now() - t0;
      },
      async pushTestImage(img) {
        const ref = `${registry}/${img.tag.replace(/^[^/]*\//, `${l.prefix}/`)}`;
        await ensureTestImage(manager.docker, { ...img, tag: ref });
        // The engine wants an X-Registry-Auth header even for a registry without a login.
        const stream = await manager.docker.getImage(ref).push({ authconfig: registryAuth ?? { serveraddress: registry } });
        await new Promise<void>((resolve, reject) =>
          manager.docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
            const bad = out?.find((o) => o.error);
            if (err || bad) reject(err ?? new Error(bad?.error));
            else resolve();
          }),
        );
        return ref;
      },
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

export interface SwarmClient {
  id: string;
  /** GET `url` from inside (busybox wget under busybox's `timeout`: its own `wget -T` crashes). */
  get(url: string, timeoutSeconds?: number): Promise<{ exitCode: number; out: string }>;
  remove(): Promise<void>;
}

/** A container of `image` (one with busybox) on `network`, on `node` through that node's own engine: to send requests from. */
export async function startClient(node: SwarmNode, opts: { network: string; image: string; shortName?: string }): Promise<SwarmClient> {
  const short = opts.shortName ?? "lrsw";
  const rt = dockerRuntime({ dockerHost: node.dockerHost });
  const name = `${short}-client-${randomBytes(4).toString("hex")}`;
  const id = await rt.createContainer({
    name,
    Image: opts.image,
    Cmd: ["/bin/busybox", "sleep", "3600"],
    Labels: { [Labels.managed]: "true", [Labels.instance]: short, [Labels.role]: "test-client" },
    HostConfig: { NetworkMode: opts.network },
  });
  if (!id) throw new Error(`${name} exists`);
  await rt.startContainer(id);
  return {
    id,
    async get(url, timeoutSeconds = 4) {
      let out = "";
      const { exitCode } = await rt.exec(id, ["/bin/busybox", "timeout", String(timeoutSeconds), "/bin/busybox", "wget", "-q", "-O", "-", url], (t) => (out += t));
      return { exitCode, out };
    },
    remove: () => rt.removeContainer(id),
  };
}

/** Sends a one-off request from inside a node's namespace; resolves with the body (the host's busybox wget, under busybox's `timeout`: its `wget -T` crashes). */
export function fetchFromNode(node: SwarmNode, url: string, timeoutSeconds = 5): Promise<string> {
  return node.exec(["busybox", "timeout", String(timeoutSeconds), "busybox", "wget", "-qO-", url]);
}

/** What of a harness is still on the host (its base dir, namespaces, bridge): empty after `stop()`. */
export const swarmLeftovers = async (opts: Pick<SwarmOptions, "shortName"> = {}): Promise<string[]> => {
  const l = layoutOf({ nodes: 0, ...opts });
  const found: string[] = [];
  if (existsSync(baseDir(l))) found.push(baseDir(l));
  const ns = await run(["ip", "netns", "list"]).catch(() => "");
  for (const line of ns.split("\n")) if (new RegExp(`^${l.prefix}\\d+\\b`).test(line)) found.push(`netns ${line.split(" ")[0]}`);
  const br = await run(["ip", "link", "show", l.bridge]).then(() => true, () => false);
  if (br) found.push(`bridge ${l.bridge}`);
  return found;
};

/**
 * Which of the kernel options a swarm feature needs this kernel lacks (from /proc/config.gz; unknown
 * there: assumed present). Encrypted overlays need ESP and GCM (IPsec); a service's VIP needs IPVS.
 */
export function missingKernelOptions(options: readonly string[]): string[] {
  let config: string;
  try {
    config = gunzipSync(readFileSync("/proc/config.gz")).toString("utf8");
  } catch {
    return [];
  }
  return options.filter((o) => !new RegExp(`^${o}=[ym]$`, "m").test(config));
}

export const ENCRYPTED_OVERLAY_OPTIONS = ["CONFIG_INET_ESP", "CONFIG_CRYPTO_GCM", "CONFIG_XFRM_USER"] as const;
export const VIP_OPTIONS = ["CONFIG_IP_VS"] as const;
