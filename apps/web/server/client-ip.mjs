// Who is really calling: the socket's peer, or, when that peer is a proxy the operator trusts
// (LEVELRAIL_TRUSTED_PROXIES), the first untrusted address of X-Forwarded-For read right to left.
// A client can put anything in X-Forwarded-For; only a trusted proxy's additions count.
import { BlockList, isIP } from "node:net";

/** `::ffff:127.0.0.1` (an IPv4 peer on a dual-stack socket) is 127.0.0.1. */
export function normalize(address) {
  const a = (address ?? "").trim();
  return a.startsWith("::ffff:") && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}

/** A matcher of addresses and CIDR ranges (`10.0.0.1`, `192.168.0.0/16`, `::1`). */
export function trustList(entries) {
  const list = new BlockList();
  for (const entry of entries) {
    const [addr, bits] = entry.split("/");
    const type = isIP(addr) === 6 ? "ipv6" : "ipv4";
    if (!isIP(addr)) throw new Error(`LEVELRAIL_TRUSTED_PROXIES: ${entry} is not an address or CIDR range`);
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return (address) => {
    const a = normalize(address);
    const v = isIP(a);
    return v !== 0 && list.check(a, v === 6 ? "ipv6" : "ipv4");
  };
}

/** The client address of a request whose socket peer is `peer` and whose X-Forwarded-For is `forwarded`. */
export function clientIp(peer, forwarded, trusted) {
  const direct = normalize(peer);
  if (!trusted(direct) || !forwarded) return direct;
  const hops = forwarded.split(",").map(normalize).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isIP(hops[i])) return direct;
    if (!trusted(hops[i])) return hops[i];
  }
  return hops[0] ?? direct;
}

/** The header the web app (and better-auth's rate limit) reads the client address from; any value a client sent is replaced. */
export const CLIENT_IP_HEADER = "x-levelrail-client-ip";
