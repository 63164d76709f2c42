import { createHash, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { type IncomingMessage, type Server, createServer } from "node:http";
import { join } from "node:path";
import { type DataPlaneState, EDGE_FEED_PATH, EDGE_STATS_PATH, nodeStatsSchema } from "@levelrail/spec/dataplane";

/** What the manager's mesh DNS hands the node agents (`EdgeFeed`), read at each request. */
export interface FeedSource {
  state(): DataPlaneState;
  /** The Caddy config the worker loaded into the manager's edge (absent: null). */
  caddyFile: string;
  /** The app overlays the manager's edge joined. */
  networks(): readonly string[];
  /** An agent said which generation it applied (`?node=…&generation=…` on its request). */
  ack?(node: string, generation: number): void;
  /** Where an agent's readings of its node's tasks are kept (`POST /v1/stats?node=…`); absent: refused. */
  statsDir?: string;
  /**
   * The token every request must carry as `Authorization: Bearer <token>` (the installation's,
   * which the node agents get as a swarm secret); null: none is set, and every request is refused.
   */
  token(): string | null;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Whether the request carries `token` (compared in constant time; no token: never). */
export function carriesToken(req: Pick<IncomingMessage, "headers">, token: string | null): boolean {
  if (!token) return false;
  const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "");
  return m !== null && timingSafeEqual(digest(m[1]!), digest(token));
}

/**
 * The token in `file` (trimmed), read again only when the file changed; null while it is missing
 * or empty.
 */
export function fileToken(file: string): () => string | null {
  let last: { stamp: string; token: string | null } | null = null;
  return () => {
    const stamp = fileStamp(file);
    if (last?.stamp !== stamp) {
      let token: string | null = null;
      try {
        token = readFileSync(file, "utf8").trim() || null;
      } catch {
        // missing: refused until the launcher writes it
      }
      last = { stamp, token };
    }
    return last.token;
  };
}

/** The most an agent's readings may weigh. */
const MAX_STATS_BYTES = 1 << 20;

/** Stores a node's readings (validated) as `<statsDir>/<node>.json`, with the time they came. */
function storeStats(dir: string, node: string, text: string): boolean {
  let parsed;
  try {
    parsed = nodeStatsSchema.safeParse(JSON.parse(text));
  } catch {
    return false;
  }
  if (!parsed.success) return false;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${node}.json`);
  writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify({ at: Date.now(), readings: parsed.data.readings })}\n`);
  renameSync(`${file}.${process.pid}.tmp`, file);
  return true;
}

/** The feed's body and its entity tag (an agent that has it gets a 304). */
export function feedBody(src: Pick<FeedSource, "state" | "caddyFile" | "networks">): { body: string; etag: string } {
  let caddy: unknown = null;
  try {
    caddy = JSON.parse(readFileSync(src.caddyFile, "utf8"));
  } catch {
    // none loaded yet (or a write in progress: the next poll has it)
  }
  const body = JSON.stringify({ state: src.state(), caddy, networks: [...src.networks()].sort() });
  return { body, etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"` };
}

/** What identifies a version of a file written whole (a rename makes a new inode; an in-place write a new mtime or size). */
function fileStamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.mtimeMs}:${s.size}`;
  } catch {
    return "none";
  }
}

/**
 * The feed's body, made again only when the state (a new object from the follower), the Caddy
 * config's file or the overlays changed: every agent asks every 300 ms, and a fleet's state and
 * config weigh enough that making them each time would take the mesh DNS's loop from its lookups.
 */
export function feedBodies(src: Pick<FeedSource, "state" | "caddyFile" | "networks">): () => { body: string; etag: string } {
  let last: { state: DataPlaneState; caddy: string; networks: string; made: { body: string; etag: string } } | null = null;
  return () => {
    const state = src.state();
    const caddy = fileStamp(src.caddyFile);
    const networks = src.networks().join("\n");
    if (!last || last.state !== state || last.caddy !== caddy || last.networks !== networks) last = { state, caddy, networks, made: feedBody(src) };
    return last.made;
  };
}

/**
 * The edge feed's HTTP server (bound by the caller on the manager edge's control-overlay address
 * only: nothing but the agents is on that network). Every request must carry the installation's
 * feed token (a 401 otherwise: the control overlay is reachable from every node, so a container
 * that found its way there must not read the routing state or write acknowledgements). Answers
 * `GET /v1/edge`, with a 304 for an agent that has it already; anything else is a 404.
 */
export function feedServer(src: FeedSource): Server {
  const bodies = feedBodies(src);
  const server = createServer((req, res) => {
    if (!carriesToken(req, src.token())) {
      req.resume();
      res.writeHead(401, { "content-type": "text/plain; charset=utf-8", "www-authenticate": "Bearer" }).end("the edge feed's token is required\n");
      return;
    }
    const url = new URL(req.url ?? "/", "http://x");
    const node = url.searchParams.get("node");
    const nodeOk = node !== null && /^[a-z0-9]{1,64}$/.test(node);
    if (req.method === "POST" && url.pathname === EDGE_STATS_PATH && src.statsDir && nodeOk) {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_STATS_BYTES) req.destroy();
        else chunks.push(c);
      });
      req.on("end", () => {
        const ok = storeStats(src.statsDir!, node, Buffer.concat(chunks).toString("utf8"));
        res.writeHead(ok ? 204 : 400, { "content-type": "text/plain; charset=utf-8" }).end(ok ? undefined : "not a node's readings\n");
      });
      return;
    }
    if (req.method !== "GET" || url.pathname !== EDGE_FEED_PATH) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const generation = Number(url.searchParams.get("generation"));
    if (nodeOk && Number.isInteger(generation)) src.ack?.(node, generation);
    const { body, etag } = bodies();
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { etag }).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json", etag, "cache-control": "no-store" }).end(body);
  });
  server.keepAliveTimeout = 30_000;
  return server;
}

/**
 * The agents' acknowledgements, kept in memory and written to `file` (whole, through a rename)
 * when a node's generation changes or its last write is `refreshMs` old (so its `seenAt` says it
 * still asks).
 */
export class AckBook {
  private readonly nodes = new Map<string, { generation: number; seenAt: number; writtenAt: number }>();

  constructor(
    private readonly file: string,
    private readonly refreshMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  ack(node: string, generation: number): void {
    const at = this.now();
    const had = this.nodes.get(node);
    const write = !had || had.generation !== generation || at - had.writtenAt >= this.refreshMs;
    this.nodes.set(node, { generation, seenAt: at, writtenAt: write ? at : had.writtenAt });
    if (!write) return;
    const body = { nodes: Object.fromEntries([...this.nodes].map(([id, n]) => [id, { generation: n.generation, seenAt: n.seenAt }])) };
    try {
      writeFileSync(`${this.file}.${process.pid}.tmp`, `${JSON.stringify(body)}\n`);
      renameSync(`${this.file}.${process.pid}.tmp`, this.file);
    } catch {
      // the next ack writes it
    }
  }
}
