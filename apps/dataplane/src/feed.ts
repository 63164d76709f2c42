import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import { type DataPlaneState, EDGE_FEED_PATH } from "@levelrail/spec/dataplane";

/** What the manager's mesh DNS hands the node agents (`EdgeFeed`), read at each request. */
export interface FeedSource {
  state(): DataPlaneState;
  /** The Caddy config the worker loaded into the manager's edge (absent: null). */
  caddyFile: string;
  /** The app overlays the manager's edge joined. */
  networks(): readonly string[];
}

/** The feed's body and its entity tag (an agent that has it gets a 304). */
export function feedBody(src: FeedSource): { body: string; etag: string } {
  let caddy: unknown = null;
  try {
    caddy = JSON.parse(readFileSync(src.caddyFile, "utf8"));
  } catch {
    // none loaded yet (or a write in progress: the next poll has it)
  }
  const body = JSON.stringify({ state: src.state(), caddy, networks: [...src.networks()].sort() });
  return { body, etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"` };
}

/**
 * The edge feed's HTTP server (bound by the caller on the manager edge's control-overlay address
 * only: nothing but the agents is on that network). Answers `GET /v1/edge`, with a 304 for an
 * agent that has it already; anything else is a 404.
 */
export function feedServer(src: FeedSource): Server {
  const server = createServer((req, res) => {
    if (req.method !== "GET" || new URL(req.url ?? "/", "http://x").pathname !== EDGE_FEED_PATH) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const { body, etag } = feedBody(src);
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { etag }).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json", etag, "cache-control": "no-store" }).end(body);
  });
  server.keepAliveTimeout = 30_000;
  return server;
}
