/** IPv4 subnets for app networks, carved from one pool the product manages (Docker's default pools run out after ~30 networks). */

export interface Cidr {
  base: number; // network address as an unsigned 32-bit integer
  bits: number;
}

const toInt = (ip: string): number => {
  const parts = ip.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`not an IPv4 address: ${ip}`);
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
};
const toIp = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");

export function parseCidr(text: string): Cidr {
  const [ip, bitsText] = text.split("/");
  const bits = Number(bitsText);
  if (!ip || !Number.isInteger(bits) || bits < 8 || bits > 30) throw new Error(`not an IPv4 CIDR like 10.201.0.0/16: ${text}`);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (toInt(ip) & mask) >>> 0, bits };
}

const size = (c: Cidr) => 2 ** (32 - c.bits);
const overlaps = (a: Cidr, b: Cidr) => a.base < b.base + size(b) && b.base < a.base + size(a);

export interface SubnetPool {
  pool: string;
  /** Prefix length of each app network, e.g. 26 (62 addresses). */
  bits: number;
}

export { DEFAULT_NETWORK_POOL } from "@levelrail/config/env";
export const APP_SUBNET_BITS = 26;

/** How many app networks the pool holds. */
export function capacity(p: SubnetPool): number {
  return 2 ** (p.bits - parseCidr(p.pool).bits);
}

/** The first subnet of the pool that overlaps none in use, with its gateway (first host); null when full. */
export function nextSubnet(p: SubnetPool, used: string[]): { subnet: string; gateway: string } | null {
  const pool = parseCidr(p.pool);
  if (p.bits < pool.bits) throw new Error(`app subnets (/${p.bits}) must be smaller than the pool ${p.pool}`);
  const taken = used.flatMap((u) => {
    try {
      return [parseCidr(u.includes("/") ? u : `${u}/32`)];
    } catch {
      return []; // IPv6 or garbage: cannot overlap an IPv4 pool
    }
  });
  const step = 2 ** (32 - p.bits);
  for (let base = pool.base; base < pool.base + size(pool); base += step) {
    const candidate = { base, bits: p.bits };
    if (!taken.some((t) => overlaps(t, candidate))) return { subnet: `${toIp(base)}/${p.bits}`, gateway: toIp(base + 1) };
  }
  return null;
}
