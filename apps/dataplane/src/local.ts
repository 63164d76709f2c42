import type { IncomingHttpHeaders } from "node:http";
import { INGRESS_HEADER } from "@levelrail/spec/dataplane";

/** Headers a proxy adds: a request carrying one came through ingress (or another proxy), not from a local process. */
const FORWARDED = [INGRESS_HEADER.toLowerCase(), "x-forwarded-for", "x-forwarded-host", "forwarded", "via"];

/** Whether an address is loopback (127.0.0.0/8, ::1, or 127.x mapped into IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.replace(/^::ffff:/i, "");
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === "::1";
}

/**
 * Whether an HTTP request to the data plane is a local process asking it directly (Caddy's TLS
 * `ask`, the CLI, a health check): the peer is on loopback and no proxy forwarded it. Caddy runs on
 * the host network, so what it proxies for a client arrives from loopback too; it marks it (and
 * adds X-Forwarded-For), which is what tells the two apart. The Host header proves nothing.
 */
export function isDirect(peer: string | undefined, headers: IncomingHttpHeaders): boolean {
  return isLoopback(peer) && !FORWARDED.some((h) => headers[h] !== undefined);
}
