// Before a node joins a swarm: which ports must be reachable between it and the nodes there, and
// whether its interface MTU fits the overlay networks. Pure: the plan names every check, a prober
// (the executor's) answers the port checks, and `judgeJoin` says which failed and how to fix each.

/** Bytes a VXLAN overlay adds to every packet (outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8). */
export const OVERLAY_OVERHEAD = 50;
/** The smallest MTU an overlay network may have: IPv6's minimum link MTU. */
export const MIN_OVERLAY_MTU = 1280;

export type Proto = "tcp" | "udp";

/** The ports a swarm uses between nodes, and why. */
export const SWARM_PORTS = [
  { port: 2377, proto: "tcp", purpose: "cluster management (to managers only)", managersOnly: true },
  { port: 7946, proto: "tcp", purpose: "node gossip", managersOnly: false },
  { port: 7946, proto: "udp", purpose: "node gossip", managersOnly: false },
  { port: 4789, proto: "udp", purpose: "overlay network traffic (VXLAN)", managersOnly: false },
] as const satisfies readonly { port: number; proto: Proto; purpose: string; managersOnly: boolean }[];

export interface SwarmMember {
  /** How it is named to an operator (hostname, or id). */
  name: string;
  address: string;
  role: "manager" | "worker";
  /** MTU of the interface it talks to the other nodes on; unknown: null. */
  mtu: number | null;
}

export interface JoinCandidate {
  name: string;
  address: string;
  mtu: number | null;
}

export interface PortCheck {
  kind: "port";
  /** `port 4789/udp 10.231.0.11→10.231.0.12` */
  id: string;
  port: number;
  proto: Proto;
  /** Names and addresses of the sender and the receiver. */
  from: { name: string; address: string };
  to: { name: string; address: string };
  purpose: string;
}

export interface MtuCheck {
  kind: "mtu";
  id: "mtu";
  /** Decided by the plan: no probe needed. */
  ok: boolean;
  /** The candidate's interface MTU (null: unknown). */
  candidateMtu: number | null;
  /** The overlay MTU the candidate must carry: `min(node MTUs) − 50`, or the networks' own when given. */
  overlayMtu: number | null;
  /** Why it is not ok, with the fix. */
  problem: string | null;
}

export type JoinCheck = PortCheck | MtuCheck;

/** An app network's MTU on these nodes: the smallest interface MTU less the overlay's 50 bytes; null when none is known. */
export function overlayMtu(interfaceMtus: readonly (number | null)[]): number | null {
  const known = interfaceMtus.filter((m): m is number => typeof m === "number" && m > 0);
  return known.length ? Math.min(...known) - OVERLAY_OVERHEAD : null;
}

function mtuCheck(candidate: JoinCandidate, members: readonly SwarmMember[], networkMtu: number | null): MtuCheck {
  const need = networkMtu ?? overlayMtu(members.map((m) => m.mtu));
  const base = { kind: "mtu" as const, id: "mtu" as const, candidateMtu: candidate.mtu, overlayMtu: need };
  if (candidate.mtu === null) return { ...base, ok: false, problem: `the MTU of ${candidate.name}'s interface is unknown: check that it reports one` };
  const carries = candidate.mtu - OVERLAY_OVERHEAD;
  if (carries < MIN_OVERLAY_MTU) {
    return { ...base, ok: false, problem: `${candidate.name}'s interface MTU ${candidate.mtu} leaves ${carries} for overlay traffic, under the minimum ${MIN_OVERLAY_MTU}: raise it to at least ${MIN_OVERLAY_MTU + OVERLAY_OVERHEAD}` };
  }
  if (need !== null && carries < need) {
    return {
      ...base,
      ok: false,
      problem: `${candidate.name}'s interface MTU ${candidate.mtu} cannot carry the overlay networks' MTU ${need} (+${OVERLAY_OVERHEAD}): raise it to at least ${need + OVERLAY_OVERHEAD}, or lower the networks' MTU to ${carries}`,
    };
  }
  return { ...base, ok: true, problem: null };
}

/**
 * Every check before `candidate` joins a swarm of `members`: 2377/tcp from it to each manager,
 * 7946/tcp, 7946/udp and 4789/udp both ways with every member, and its MTU. `networkMtu` is the MTU
 * the swarm's app networks already use (null: computed from the members' MTUs).
 */
export function planJoinChecks(candidate: JoinCandidate, members: readonly SwarmMember[], networkMtu: number | null = null): JoinCheck[] {
  const checks: JoinCheck[] = [];
  const c = { name: candidate.name, address: candidate.address };
  for (const m of members) {
    if (m.address === candidate.address) continue;
    const other = { name: m.name, address: m.address };
    for (const p of SWARM_PORTS) {
      const pairs = p.managersOnly ? (m.role === "manager" ? [[c, other]] : []) : [[c, other], [other, c]];
      for (const [from, to] of pairs as [typeof c, typeof c][]) {
        checks.push({ kind: "port", id: `port ${p.port}/${p.proto} ${from.address}→${to.address}`, port: p.port, proto: p.proto, from, to, purpose: p.purpose });
      }
    }
  }
  checks.push(mtuCheck(candidate, members, networkMtu));
  return checks;
}

/** What a prober found for one port check; `unverified` when it could not tell (say why). */
export type ProbeOutcome = { status: "pass" } | { status: "fail"; detail: string } | { status: "unverified"; detail: string };

export interface FailedCheck {
  id: string;
  /** `port 4789/udp` or `mtu`: what an operator looks for first. */
  check: string;
  message: string;
  fix: string;
}

export interface JoinVerdict {
  ok: boolean;
  failed: FailedCheck[];
  /** Port checks a prober could not decide (e.g. UDP to a port the engine itself holds). */
  unverified: { id: string; detail: string }[];
  passed: string[];
}

const portFix = (c: PortCheck) =>
  `allow ${c.proto.toUpperCase()} ${c.port} from ${c.from.address} to ${c.to.address} (${c.purpose}) in ${c.to.name}'s firewall and any between them`;

/**
 * The verdict over the plan and the prober's outcomes: ok only when every check passed; a check
 * with no outcome fails (the prober skipped it), an unverified one is listed, not failed.
 */
export function judgeJoin(checks: readonly JoinCheck[], outcomes: ReadonlyMap<string, ProbeOutcome>): JoinVerdict {
  const failed: FailedCheck[] = [];
  const unverified: JoinVerdict["unverified"] = [];
  const passed: string[] = [];
  for (const c of checks) {
    if (c.kind === "mtu") {
      if (c.ok) passed.push(c.id);
      else failed.push({ id: c.id, check: "mtu", message: c.problem ?? "MTU does not fit", fix: c.problem ?? "" });
      continue;
    }
    const o = outcomes.get(c.id);
    const name = `port ${c.port}/${c.proto}`;
    if (!o) failed.push({ id: c.id, check: name, message: `${name} from ${c.from.name} to ${c.to.name} was not probed`, fix: portFix(c) });
    else if (o.status === "pass") passed.push(c.id);
    else if (o.status === "unverified") unverified.push({ id: c.id, detail: o.detail });
    else failed.push({ id: c.id, check: name, message: `${name} from ${c.from.name} (${c.from.address}) to ${c.to.name} (${c.to.address}) is not reachable: ${o.detail}`, fix: portFix(c) });
  }
  return { ok: failed.length === 0, failed, unverified, passed };
}

/** Probes one port check (the executor's side: a TCP connect, a UDP datagram to a listener it placed). */
export interface PortProber {
  probe(check: PortCheck): Promise<ProbeOutcome>;
}

/** The thin executor: plans, probes each port check one at a time, judges. */
export async function runJoinPreflight(
  candidate: JoinCandidate,
  members: readonly SwarmMember[],
  prober: PortProber,
  networkMtu: number | null = null,
): Promise<JoinVerdict & { checks: JoinCheck[] }> {
  const checks = planJoinChecks(candidate, members, networkMtu);
  const outcomes = new Map<string, ProbeOutcome>();
  for (const c of checks) {
    if (c.kind !== "port") continue;
    outcomes.set(c.id, await prober.probe(c).catch((err: unknown) => ({ status: "fail" as const, detail: err instanceof Error ? err.message : String(err) })));
  }
  return { ...judgeJoin(checks, outcomes), checks };
}
