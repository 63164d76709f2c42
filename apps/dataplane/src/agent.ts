// The node agent (docs/operating/nodes-and-swarm.md#the-data-plane-on-every-node: "Caddy and the mesh DNS run on every node"). On a swarm, `npm start`
// on the manager runs it as a global swarm service on every other node. It talks to its own node's
// engine only (the socket mounted), and runs there what the manager runs in its edge namespace: the
// holder (joined live to each app overlay), Caddy and both mesh DNS replicas, each a standalone
// container under its engine's restart policy, so the node's edge outlives the agent. It keeps
// them a copy of the manager's edge: every 300 ms it reads the edge feed (the data plane's state,
// the edge's Caddy config, the app overlays) from the manager's mesh DNS on the control overlay,
// writes the state file its replicas follow, loads the config into its Caddy and joins the overlays.
// The manager is needed only for changes: while it is away, the node keeps serving what it knew.
import { createHash } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { basename, dirname, join } from "node:path";
import type Docker from "dockerode";
import { statsCalls } from "@levelrail/docker";
import { readTaskStats } from "@levelrail/docker/swarm/task-stats";
import { ENGINE_DIR, type EdgeOptions, adminSocketAnswers, adminSocketRequest, edgeAdminConfig, edgeAdminSocket, edgeName, ensureEdge, ensureEdgeContainer, joinEdge } from "@levelrail/docker/swarm/edge";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE, EDGE_FEED_PATH, EDGE_STATS_PATH, EDGE_FEED_PORT, type EdgeFeed, edgeFeedHost, edgeFeedSchema } from "@levelrail/spec/dataplane";

export interface AgentOptions {
  shortName: string;
  /** The image this agent runs from: node, the data plane, the agent and Caddy (the node's edge containers use it too). */
  image: string;
  version: string;
  /** The node's engine socket on the host (the edge's holder and replicas mount its folder), and where this agent reaches it. */
  hostSocket: string;
  socket: string;
  httpPort: number;
  httpsPort: number | null;
  meshPort: number;
  /** The named volume of the node's edge state (Caddy's home, the state file), mounted at `home` here and in the edge's containers. */
  volume: string;
  home: string;
  /** What the node's Caddy container is adopted by (the hash of the image's Caddy binary: an upgrade of the agent alone keeps it). */
  caddyInputs?: string;
  /** How often this node's task readings go to the manager (default 5 s). */
  statsEveryMs?: number;
  /** This node's swarm id: said with each read of the feed, with the generation applied. */
  nodeId: string;
  /** Where the feed is (default: the manager edge's alias on the control overlay). */
  feedUrl?: string;
  /** The installation's feed token (the swarm secret's content): said with every request to the feed. */
  feedToken: string;
  pollMs?: number;
  log: (line: string) => void;
}

const LOG_CONFIG = { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } };
type Json = Record<string, unknown>;

export const feedUrl = (shortName: string) => `http://${edgeFeedHost(shortName)}:${EDGE_FEED_PORT}${EDGE_FEED_PATH}`;

/** Pure: the manager's edge config as this node's Caddy runs it (its own admin socket; everything else the same). */
export function nodeCaddyConfig(manager: Json, caddyHome: string): Json {
  return { ...manager, admin: edgeAdminConfig(caddyHome) };
}

/** Pure: the edge options of a node agent's edge (the same image for the holder and Caddy, its home in the volume). */
export function nodeEdgeOptions(o: AgentOptions): EdgeOptions {
  return {
    shortName: o.shortName,
    holderImage: { image: o.image, node: process.execPath },
    caddyImage: o.image,
    ...(o.caddyInputs ? { caddyInputs: o.caddyInputs } : {}),
    httpPort: o.httpPort,
    httpsPort: o.httpsPort,
    caddyHome: join(o.home, "caddy"),
    homeVolume: { name: o.volume, path: o.home },
    engineSocket: o.hostSocket,
  };
}

/** Pure: one mesh DNS replica of the node's edge, in the holder's namespace, as the manager's are. */
export function nodeMeshReplicaOptions(o: AgentOptions, replica: number) {
  return {
    name: `${o.shortName}-mesh-dns-${replica}-${o.version}-edge`,
    Image: o.image,
    Entrypoint: [process.execPath, "--enable-source-maps", "/app/dataplane/main.mjs"],
    Cmd: [],
    Env: [
      `LEVELRAIL_DATA_DIR=${o.home}`,
      `LEVELRAIL_SHORT_NAME=${o.shortName}`,
      `LEVELRAIL_MESH_DNS_PORT=${o.meshPort}`,
      `LEVELRAIL_MESH_DNS_REPLICA=${replica}`,
      `LEVELRAIL_DATAPLANE_VERSION=${o.version}`,
      "LEVELRAIL_DATAPLANE_SUPERVISOR=engine",
      `DOCKER_HOST=unix://${ENGINE_DIR}/${basename(o.hostSocket)}`,
    ],
    Labels: {
      "levelrail.managed": "true",
      "levelrail.instance": o.shortName,
      "levelrail.role": "mesh-dns",
      "levelrail.replica": String(replica),
      "levelrail.version": o.version,
      "levelrail.network": edgeName(o.shortName),
      "levelrail.edge.inputs": `${o.image} ${o.meshPort}`,
    },
    StopSignal: "SIGTERM",
    HostConfig: {
      NetworkMode: `container:${edgeName(o.shortName)}`,
      Binds: [`${o.volume}:${o.home}`, `${dirname(o.hostSocket)}:${ENGINE_DIR}`],
      // The replicas watch each other by pid (`sibling.ts`), as on the manager.
      PidMode: "host",
      RestartPolicy: { Name: "unless-stopped" },
      LogConfig: LOG_CONFIG,
      SecurityOpt: ["no-new-privileges"],
    },
  };
}

const hash = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex");

/** One GET of the feed: the feed, `null` for a 304 (unchanged), or throws. */
function readFeed(url: string, token: string, etag: string | null, timeoutMs: number): Promise<{ feed: EdgeFeed; etag: string } | null> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}`, ...(etag ? { "if-none-match": etag } : {}) }, timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        if (res.statusCode === 304) return resolve(null);
        if (res.statusCode !== 200) return reject(new Error(`the edge feed answered ${res.statusCode}`));
        try {
          resolve({ feed: edgeFeedSchema.parse(JSON.parse(body)), etag: String(res.headers.etag ?? "") });
        } catch (err) {
          reject(new Error(`the edge feed sent what is not a feed: ${err instanceof Error ? err.message : String(err)}`));
        }
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`the edge feed did not answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
}

/** One POST of this node's task readings to the manager's mesh DNS. */
function postStats(url: string, token: string, body: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 204 ? resolve() : reject(new Error(`the manager refused this node's readings (${res.statusCode})`))));
    });
    req.on("timeout", () => req.destroy(new Error(`the manager did not take this node's readings within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** Caddy's admin API on a unix socket (the node's Caddy): loads a whole config. */
async function loadCaddy(socketPath: string, config: Json): Promise<void> {
  const res = await adminSocketRequest(socketPath, "POST", "/load", JSON.stringify(config), 15_000);
  if (res.status !== 200) throw new Error(`Caddy refused the config (${res.status}): ${res.text.slice(0, 300)}`);
}

/**
 * The agent's loop (see the file's head). `ensure` makes or adopts the node's edge (every 10 s, and
 * at once when a container of it went); `sync` applies a changed feed. Errors are logged once per
 * kind and retried: a node's edge keeps serving its last copy whatever fails here.
 */
export class NodeAgent {
  private etag: string | null = null;
  private edge: { holder: string; caddy: string } | null = null;
  private joined = new Set<string>();
  private written = "";
  private loaded: { caddy: string; config: string } | null = null;
  private feed: EdgeFeed | null = null;
  private lastProblem = "";
  private stopped = false;
  private lastEnsure = 0;
  /** The state generation whose feed was applied whole (state file, overlays, Caddy). */
  private applied = -1;
  private lastStats = 0;
  private readonly stats: ReturnType<typeof statsCalls>;

  constructor(
    private readonly docker: Docker,
    private readonly o: AgentOptions,
  ) {
    this.stats = statsCalls(docker);
  }

  /**
   * Every `statsEveryMs`: one reading of each task container on this node, sent to the manager
   * (the worker's metrics sampler reads them: stats of a task exist only on its node's engine).
   */
  async sendStats(): Promise<void> {
    if (Date.now() - this.lastStats < (this.o.statsEveryMs ?? 5_000)) return;
    this.lastStats = Date.now();
    const readings = await readTaskStats(this.docker, this.stats, this.o.shortName);
    const base = (this.o.feedUrl ?? feedUrl(this.o.shortName)).replace(EDGE_FEED_PATH, EDGE_STATS_PATH);
    await postStats(`${base}?node=${encodeURIComponent(this.o.nodeId)}`, this.o.feedToken, JSON.stringify({ readings }), 5_000);
  }

  private get caddyHome() {
    return join(this.o.home, "caddy");
  }

  private problem(what: string, err: unknown): void {
    const line = `${what}: ${err instanceof Error ? err.message : String(err)}`;
    if (line !== this.lastProblem) this.o.log(line);
    this.lastProblem = line;
  }

  /** The node's edge: holder, Caddy and both replicas, made or adopted. */
  async ensure(): Promise<void> {
    const made = await ensureEdge(this.docker, nodeEdgeOptions(this.o), () => adminSocketAnswers(edgeAdminSocket(this.caddyHome)));
    if (made.madeHolder || made.caddy !== this.edge?.caddy) {
      // A new namespace has no overlay; a new Caddy has only its admin config.
      if (made.madeHolder) {
        this.joined.clear();
        for (const r of [0, 1]) await this.docker.getContainer(nodeMeshReplicaOptions(this.o, r).name).remove({ force: true }).catch(() => {});
      }
      this.loaded = null;
      this.o.log(`edge ${made.madeHolder ? "made" : "adopted"} (holder ${made.holder.slice(0, 12)}, Caddy ${made.caddy.slice(0, 12)}; HTTP on ${this.o.httpPort})`);
    }
    this.edge = { holder: made.holder, caddy: made.caddy };
    // One replica at a time, as the launcher does on the manager: the new one answers DNS beside
    // the old (UDP) and takes its TCP port, which Caddy asks, once the old lets go; the other
    // replica's port serves meanwhile. Replicas of another version (an agent before an upgrade) go.
    const filters = JSON.stringify({ label: [`levelrail.instance=${this.o.shortName}`, "levelrail.role=mesh-dns", `levelrail.network=${edgeName(this.o.shortName)}`] });
    const all = await this.docker.listContainers({ all: true, filters });
    for (const r of [0, 1]) {
      const want = nodeMeshReplicaOptions(this.o, r);
      const made = await ensureEdgeContainer(this.docker, want);
      const old = all.filter((c) => c.Labels?.["levelrail.replica"] === String(r) && c.Names?.[0] !== `/${want.name}`);
      // The new one has the state and has probed its tasks before the old one goes.
      if (old.length > 0) await this.untilLogged(made.id, / answering DNS over UDP | ready \(pid /, "that it answers DNS"); // either: one adopted may be ready long since
      for (const c of old) {
        await this.docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
        this.o.log(`removed the mesh DNS replica ${(c.Names?.[0] ?? c.Id).replace(/^\//, "")} of another version`);
      }
      if (old.length > 0) await this.untilLogged(made.id, / ready \(pid /, "that it is ready"); // it serves TCP too
    }
    this.lastEnsure = Date.now();
  }

  /** Waits (at most 15 s) until a replica's log has a line `line` matches (`what` it says, for the log). */
  private async untilLogged(id: string, line: RegExp, what: string): Promise<void> {
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      const logs = await this.docker.getContainer(id).logs({ stdout: true, stderr: true, tail: 200 }).catch(() => Buffer.from(""));
      if (line.test(logs.toString("utf8"))) return;
      await new Promise((done) => setTimeout(done, 100));
    }
    this.o.log(`the mesh DNS replica ${id.slice(0, 12)} did not say ${what} within 15 s; going on`);
  }

  /** Applies the feed: the state file, the overlays, Caddy's config (each only when it changed). */
  async apply(feed: EdgeFeed): Promise<void> {
    const stateText = JSON.stringify(feed.state);
    if (stateText !== this.written) {
      const file = join(this.o.home, DATAPLANE_DIR, DATAPLANE_STATE_FILE);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(`${file}.agent.tmp`, `${stateText}\n`);
      renameSync(`${file}.agent.tmp`, file);
      this.written = stateText;
    }
    for (const n of feed.networks) {
      if (this.joined.has(n)) continue;
      try {
        await joinEdge(this.docker, this.o.shortName, n);
        this.joined.add(n);
        this.o.log(`joined the app overlay ${n}`);
      } catch (err) {
        this.problem(`cannot join the app overlay ${n} yet`, err);
      }
    }
    if (feed.caddy && this.edge) {
      const config = nodeCaddyConfig(feed.caddy, this.caddyHome);
      const key = hash(config);
      if (this.loaded?.caddy !== this.edge.caddy || this.loaded.config !== key) {
        await loadCaddy(edgeAdminSocket(this.caddyHome), config);
        this.loaded = { caddy: this.edge.caddy, config: key };
        this.o.log("loaded the edge's Caddy config");
      }
    }
  }

  /** The feed's address, saying which node asks and which generation it applied. */
  private feedRead(): string {
    return `${this.o.feedUrl ?? feedUrl(this.o.shortName)}?node=${encodeURIComponent(this.o.nodeId)}&generation=${this.applied}`;
  }

  /** One pass: the edge when due, then the feed. */
  async pass(): Promise<void> {
    try {
      if (!this.edge || Date.now() - this.lastEnsure > 10_000) await this.ensure();
    } catch (err) {
      this.problem("cannot run the node's edge", err);
      this.edge = null;
      return;
    }
    try {
      const got = await readFeed(this.feedRead(), this.o.feedToken, this.etag, 5_000);
      if (got) {
        this.feed = got.feed;
        this.etag = got.etag;
      }
      if (this.feed) {
        await this.apply(this.feed);
        if (this.applied !== this.feed.state.generation) {
          this.applied = this.feed.state.generation;
          // Said at once: the worker waits for it before removing a release's old tasks.
          await readFeed(this.feedRead(), this.o.feedToken, this.etag, 5_000).catch(() => null);
        }
      }
      if (this.lastProblem) this.o.log("in step with the manager's edge again");
      this.lastProblem = "";
    } catch (err) {
      this.problem("cannot read the edge feed (the node keeps serving its last copy)", err);
      return;
    }
    await this.sendStats().catch((err: unknown) => this.problem("cannot send this node's task readings", err));
  }

  async run(): Promise<void> {
    while (!this.stopped) {
      await this.pass();
      await new Promise((r) => setTimeout(r, this.o.pollMs ?? 300));
    }
  }

  stop(): void {
    this.stopped = true;
  }
}
