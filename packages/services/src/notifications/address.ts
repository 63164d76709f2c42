import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, type LookupFunction, isIP } from "node:net";

/*
 * The installation's address policy for what the panel itself connects to on a tenant's behalf:
 * webhooks, SMTP servers and backup targets. Unless the installation allows private targets
 * (LEVELRAIL_ALLOW_PRIVATE_TARGETS, never a tenant's setting), only public addresses are reached.
 *
 * IPv4: the ranges below are refused, the rest is public. IPv6 is checked the other way round:
 * only global unicast (2000::/3) can be public, minus the ranges named below, so a form that
 * carries an IPv4 address or reaches the host (`::127.0.0.1`, NAT64 `64:ff9b:1::/48`, …) is
 * refused whether or not it is listed. (ipaddr.js names ranges but answers `unicast` for what it
 * does not know, e.g. both of those, so it would not do better than this default-deny.)
 */
const V4: [string, number, string][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["127.0.0.0", 8, "loopback"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["100.64.0.0", 10, "shared (carrier-grade NAT)"],
  ["169.254.0.0", 16, "link-local"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved (documentation)"],
  ["198.51.100.0", 24, "reserved (documentation)"],
  ["203.0.113.0", 24, "reserved (documentation)"],
  ["198.18.0.0", 15, "reserved (benchmarking)"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const V6: [string, number, string][] = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::", 96, "IPv4-compatible"],
  ["::ffff:0:0", 96, "IPv4-mapped"],
  ["64:ff9b::", 96, "IPv4-embedding (NAT64)"],
  ["64:ff9b:1::", 48, "IPv4-embedding (local-use NAT64)"],
  ["100::", 64, "reserved (discard)"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "private (site-local)"],
  ["fc00::", 7, "private (unique local)"],
  ["ff00::", 8, "multicast"],
  ["2002::", 16, "IPv4-embedding (6to4)"],
  ["2001::", 32, "IPv4-embedding (Teredo)"],
  ["2001:db8::", 32, "reserved (documentation)"],
  ["2001:10::", 28, "reserved (ORCHID)"],
];
const listOf = (net: string, prefix: number, family: "ipv4" | "ipv6") => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return list;
};
const V4_LISTS = V4.map(([net, prefix, what]) => ({ list: listOf(net, prefix, "ipv4"), what }));
const V6_LISTS = V6.map(([net, prefix, what]) => ({ list: listOf(net, prefix, "ipv6"), what }));
const GLOBAL_UNICAST = listOf("2000::", 3, "ipv6");

/** What kind of address `ip` is when it is not public (`loopback`, `private`, …); null: a public address. */
export function addressProblem(ip: string): string | null {
  const family = isIP(ip);
  if (family === 0) return "invalid";
  const type = family === 4 ? "ipv4" : "ipv6";
  // A BlockList matches an IPv4-mapped IPv6 address (::ffff:127.0.0.1) against the IPv4 ranges too.
  for (const { list, what } of V4_LISTS) if (list.check(ip, type)) return what;
  if (family === 4) return null;
  for (const { list, what } of V6_LISTS) if (list.check(ip, "ipv6")) return what;
  return GLOBAL_UNICAST.check(ip, "ipv6") ? null : "reserved (not global unicast)";
}

/** A URL's host as a name or bare address: no IPv6 brackets, no trailing dot, lower case. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
}

/** What a refusal tells the tenant: only the installation can allow private targets. */
const REFUSED = "refused (private targets are allowed only by the installation's LEVELRAIL_ALLOW_PRIVATE_TARGETS)";

/**
 * Why the panel may not connect to this host as written (before any DNS): an address that is not
 * public, `localhost`, or the panel's own host. Null: allowed (a name is checked again, resolved,
 * when connecting).
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

/** The installation's policy for the addresses the panel connects to on a tenant's behalf. */
export interface TargetPolicy {
  /** `LEVELRAIL_ALLOW_PRIVATE_TARGETS`: loopback, private and link-local targets and the panel's own host are allowed. */
  allowPrivate: boolean;
  /** The panel's own host: refused unless private targets are allowed. */
  panelHost?: string | undefined;
  lookup?: Lookup | undefined;
}

/** A refused or unresolvable target: a failed delivery or connection naming why. */
export class TargetError extends Error {
  override name = "TargetError";
}

/** Why `hostname` as written is refused by `policy` (a message for `field`), or null. */
export function policyProblem(hostname: string, policy: TargetPolicy): string | null {
  if (policy.allowPrivate) return null;
  const literal = literalHostProblem(hostname, policy.panelHost);
  return literal ? `${literal}; ${REFUSED}` : null;
}

/**
 * The one address to connect to: the literal address, or the host's name resolved once. Unless
 * private targets are allowed, every address it resolves to must be public and none the panel's
 * own, so a name cannot lead the connection to a private address (the caller connects to exactly
 * the address answered here, never resolving again: no DNS rebinding between check and connect).
 */
export async function resolveTarget(hostname: string, policy: TargetPolicy): Promise<ResolvedAddress> {
  const host = bareHost(hostname);
  const lookup = policy.lookup ?? systemLookup;
  const literal = policyProblem(host, policy);
  if (literal) throw new TargetError(literal);
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
  if (policy.allowPrivate) return first;
  const panel = policy.panelHost ? await panelAddresses(bareHost(policy.panelHost), lookup) : new Set<string>();
  for (const a of addresses) {
    const what = addressProblem(a.address);
    if (what) throw new TargetError(`${host} resolves to ${a.address}, a ${what} address; ${REFUSED}`);
    if (panel.has(a.address)) throw new TargetError(`${host} resolves to ${a.address}, the panel's own address; ${REFUSED}`);
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

/**
 * A `lookup` for node:net, node:http(s) agents and clients built on them (the S3 SDK): every name
 * is resolved and checked by `resolveTarget`, and the socket connects to the checked address. Node
 * does not call `lookup` for an address literal: check those with `policyProblem` first.
 */
export function checkedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveTarget(hostname, policy).then(
      (target) => {
        if (options.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
        else callback(null, target.address, target.family);
      },
      (err: Error) => callback(Object.assign(err, { code: "ETARGETREFUSED" }), "", 0),
    );
  };
}
