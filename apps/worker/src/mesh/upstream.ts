import { readFileSync } from "node:fs";

/** What Docker falls back to when the host has no usable resolver (libnetwork's defaults). */
export const FALLBACK_NAMESERVERS = ["8.8.8.8", "8.8.4.4"];

const nameservers = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[0] === "nameserver" && f[1])
    .map((f) => f[1]!);

const isLoopback = (ip: string) => ip.startsWith("127.") || ip === "::1";
const isIpv4 = (ip: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(ip);

/**
 * The resolvers an app container asks after the mesh DNS, which refuses every
 * name outside its zone (Docker's embedded DNS then asks the next server).
 * Picked the way Docker picks a container's resolvers when it sets none: the
 * host's resolv.conf (systemd-resolved's upstream list when it points at the
 * local stub), without loopback addresses (unreachable from a container) or
 * IPv6 ones (app networks are IPv4); Docker's defaults when none is left.
 */
export function hostNameservers(read: (path: string) => string | null = readOrNull): string[] {
  let servers = nameservers(read("/etc/resolv.conf") ?? "");
  if (servers.length > 0 && servers.every(isLoopback)) servers = nameservers(read("/run/systemd/resolve/resolv.conf") ?? "");
  const usable = servers.filter((ip) => isIpv4(ip) && !isLoopback(ip));
  return usable.length > 0 ? [...new Set(usable)] : FALLBACK_NAMESERVERS;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
