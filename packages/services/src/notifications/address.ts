import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Ranges a webhook may not reach unless its channel allows private targets, with what each is. */
const RANGES: [string, number, "ipv4" | "ipv6", string][] = [
  ["0.0.0.0", 8, "ipv4", "unspecified"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["10.0.0.0", 8, "ipv4", "private"],
  ["172.16.0.0", 12, "ipv4", "private"],
  ["192.168.0.0", 16, "ipv4", "private"],
  ["100.64.0.0", 10, "ipv4", "shared (carrier-grade NAT)"],
  ["169.254.0.0", 16, "ipv4", "link-local"],
  ["192.0.0.0", 24, "ipv4", "reserved"],
  ["198.18.0.0", 15, "ipv4", "reserved (benchmarking)"],
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved"],
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["fec0::", 10, "ipv6", "private (site-local)"],
  ["fc00::", 7, "ipv6", "private (unique local)"],
  ["ff00::", 8, "ipv6", "multicast"],
  // NAT64 and 6to4 carry an IPv4 address inside; refused rather than decoded.
  ["64:ff9b::", 96, "ipv6", "IPv4-embedding (NAT64)"],
  ["2002::", 16, "ipv6", "IPv4-embedding (6to4)"],
];
const LISTS = RANGES.map(([net, prefix, family, what]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return { list, what };
});

/** What kind of address `ip` is when a webhook may not reach it (`loopback`, `private`, …); null: a public address. */
export function addressProblem(ip: string): string | null {
  const family = isIP(ip);
  if (family === 0) return "invalid";
  // A BlockList matches an IPv4-mapped IPv6 address (::ffff:127.0.0.1) against the IPv4 ranges too.
  for (const { list, what } of LISTS) if (list.check(ip, family === 4 ? "ipv4" : "ipv6")) return what;
  return null;
}

/** A URL's host as a name or bare address: no IPv6 brackets, no trailing dot, lower case. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
}

/**
 * Why a webhook may not go to this URL's host as written (before any DNS): an address that is not
 * public, `localhost`, or the panel's own host. Null: allowed (a name is checked again, resolved, at
 * delivery).
 */
export function literalHostProblem(hostname: string, panelHost: string | undefined): string | null {
  const host = bareHost(hostname);
  if (panelHost && host === bareHost(panelHost)) return `${host} is the panel's own host`;
  if (host === "localhost" || host.endsWith(".localhost")) return `${host} is a loopback name`;
  if (isIP(host)) {
    const what = addressProblem(host);
    if (what) return `${host} is a ${what} address`;
  }
  return null;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
export type Lookup = (host: string) => Promise<ResolvedAddress[]>;

export const systemLookup: Lookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** A refused or unresolvable target: a failed delivery naming why. */
export class TargetError extends Error {}

/**
 * The one address a delivery connects to: the literal address, or the host's name resolved once.
 * Unless private targets are allowed, every address it resolves to must be public and none the
 * panel's own, so a name cannot lead the request to a private address (the caller connects to
 * exactly the address answered here, never resolving again).
 */
export async function resolveTarget(
  hostname: string,
  o: { allowPrivate: boolean; panelHost?: string | undefined; lookup?: Lookup },
): Promise<ResolvedAddress> {
  const host = bareHost(hostname);
  const lookup = o.lookup ?? systemLookup;
  if (!o.allowPrivate) {
    const literal = literalHostProblem(host, o.panelHost);
    if (literal) throw new TargetError(`${literal}; refused (allow private targets for this channel to send there)`);
  }
  const family = isIP(host);
  let addresses: ResolvedAddress[];
  if (family) addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await lookup(host);
    } catch (err) {
      throw new TargetError(`${host} does not resolve (${(err as { code?: string }).code ?? "lookup failed"})`);
    }
  }
  const first = addresses[0];
  if (!first) throw new TargetError(`${host} resolves to no address`);
  if (o.allowPrivate) return first;
  const panel = o.panelHost ? await panelAddresses(bareHost(o.panelHost), lookup) : new Set<string>();
  for (const a of addresses) {
    const what = addressProblem(a.address);
    if (what) throw new TargetError(`${host} resolves to ${a.address}, a ${what} address; refused (allow private targets for this channel to send there)`);
    if (panel.has(a.address)) throw new TargetError(`${host} resolves to ${a.address}, the panel's own address; refused`);
  }
  return first;
}

async function panelAddresses(panelHost: string, lookup: Lookup): Promise<Set<string>> {
  if (isIP(panelHost)) return new Set([panelHost]);
  try {
    return new Set((await lookup(panelHost)).map((a) => a.address));
  } catch {
    return new Set();
  }
}
