/** IPv4 `a.b.c.d` as a 32-bit unsigned number; null when it is not one (IPv6 included). */
function ipv4(address: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address.replace(/^::ffff:/i, ""));
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

/** Whether `address` is inside `cidr` (`10.201.0.0/26`); false for anything that is not IPv4. */
export function inSubnet(address: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split("/");
  const a = ipv4(address);
  const b = ipv4(base ?? "");
  const bits = Number(bitsText);
  if (a === null || b === null || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const size = 2 ** (32 - bits);
  return Math.floor(a / size) === Math.floor(b / size);
}

/** Of a network's subnets, the one its gateway is in (the network the gateway serves); null if none. */
export function gatewaySubnet(gateway: string, subnets: readonly string[]): string | null {
  return subnets.find((s) => inSubnet(gateway, s)) ?? null;
}

/**
 * Where the mesh DNS listens for one app network: on one engine its gateway (a bridge's, an address
 * of this host); in a swarm node's edge namespace, which has an address on every app overlay it
 * joined but not the overlay's gateway, that own address. `local`: this namespace's addresses.
 */
export function listenAddress(gateway: string, subnet: string | null, local: readonly string[]): string {
  if (local.includes(gateway) || subnet === null) return gateway;
  return local.find((a) => inSubnet(a, subnet)) ?? gateway;
}
