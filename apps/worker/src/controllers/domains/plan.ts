import type { DomainProofStatus } from "@levelrail/spec/domains";

/** One proof as the plan sees it (plain data). */
export interface Proof {
  id: string;
  orgId: string;
  domain: string;
  status: DomainProofStatus;
  lastSeenAt: Date | null;
  misses: number;
  nextCheckAt: Date;
}

/** A domain some service of an organization has, that needs a proof. */
export interface Claim {
  orgId: string;
  domain: string;
}

/** What one TXT lookup found. */
export type Lookup =
  | { kind: "found" }
  /** No record, or records without this organization's token. */
  | { kind: "missing"; result: string }
  /** The resolver did not answer (timeout, SERVFAIL): counts as not seen, so the grace period covers an outage. */
  | { kind: "error"; result: string };

export interface ProofPolicy {
  /** Pending: the first re-check after this, doubling per miss up to `pendingMaxMs`. */
  pendingBaseMs: number;
  pendingMaxMs: number;
  /** Verified and seen: re-checked this often. */
  verifiedRecheckMs: number;
  /** Verified, record gone: re-checked this often (never past the grace's end). */
  lostRecheckMs: number;
  /** How long a verified domain keeps routing after its record was last seen. */
  graceMs: number;
  /** Failed: re-checked this often (it comes back when the record does). */
  failedRecheckMs: number;
}

export const DEFAULT_PROOF_POLICY: ProofPolicy = {
  pendingBaseMs: 60_000,
  pendingMaxMs: 15 * 60_000,
  verifiedRecheckMs: 60 * 60_000,
  lostRecheckMs: 5 * 60_000,
  graceMs: 72 * 3_600_000,
  failedRecheckMs: 60 * 60_000,
};

/** The outcome of one check: the proof's next state. */
export interface Checked {
  status: DomainProofStatus;
  lastSeenAt: Date | null;
  /** Set when the domain becomes verified (from pending or failed). */
  verifiedNow: boolean;
  misses: number;
  nextCheckAt: Date;
  result: string;
}

const at = (now: Date, ms: number) => new Date(now.getTime() + ms);

/** Pure: a proof after one lookup at `now`. */
export function afterCheck(p: Pick<Proof, "status" | "lastSeenAt" | "misses">, lookup: Lookup, now: Date, policy: ProofPolicy, recordName: string): Checked {
  if (lookup.kind === "found") {
    return { status: "verified", lastSeenAt: now, verifiedNow: p.status !== "verified", misses: 0, nextCheckAt: at(now, policy.verifiedRecheckMs), result: `${recordName} holds the token` };
  }
  const misses = p.misses + 1;
  const backoff = (base: number, max: number) => Math.min(max, base * 2 ** Math.min(misses - 1, 20));
  const keep = { lastSeenAt: p.lastSeenAt, verifiedNow: false, misses };
  if (p.status === "pending") {
    return { ...keep, status: "pending", nextCheckAt: at(now, backoff(policy.pendingBaseMs, policy.pendingMaxMs)), result: lookup.result };
  }
  if (p.status === "failed") {
    return { ...keep, status: "failed", nextCheckAt: at(now, policy.failedRecheckMs), result: lookup.result };
  }
  // Verified, and the record is not there now: it keeps routing until the grace period ends.
  const seen = p.lastSeenAt ?? now;
  const ends = at(seen, policy.graceMs);
  if (ends.getTime() <= now.getTime()) {
    return { ...keep, status: "failed", nextCheckAt: at(now, policy.failedRecheckMs), result: `${lookup.result}; not seen since ${seen.toISOString()}: the domain stopped routing` };
  }
  const next = Math.min(at(now, backoff(policy.lostRecheckMs, policy.verifiedRecheckMs)).getTime(), ends.getTime());
  return { ...keep, status: "verified", nextCheckAt: new Date(next), result: `${lookup.result}; the domain keeps routing until ${ends.toISOString()} unless the record comes back` };
}

/** What one pass does: proofs to create, to delete, to check now, and when to come back. */
export interface ProofPlan {
  create: Claim[];
  /** Proofs nobody claims any more and that prove nothing (a verified one is kept: the organization still owns the domain). */
  remove: string[];
  check: Proof[];
  /** When the next proof is due (null: none). */
  nextDueAt: Date | null;
}

const claimKey = (c: Claim) => `${c.orgId} ${c.domain.toLowerCase()}`;

/** Pure: the next pass's work, from the claims the services make and the proofs recorded. At most `limit` checks. */
export function planProofs(claims: Claim[], proofs: Proof[], now: Date, limit: number): ProofPlan {
  const have = new Set(proofs.map(claimKey));
  const wanted = new Set(claims.map(claimKey));
  const create: Claim[] = [];
  for (const c of claims) {
    const k = claimKey(c);
    if (have.has(k)) continue;
    have.add(k);
    create.push({ orgId: c.orgId, domain: c.domain.toLowerCase() });
  }
  const remove = proofs.filter((p) => !wanted.has(claimKey(p)) && p.status !== "verified").map((p) => p.id);
  const live = proofs.filter((p) => !remove.includes(p.id));
  const due = live.filter((p) => p.nextCheckAt.getTime() <= now.getTime()).sort((a, b) => a.nextCheckAt.getTime() - b.nextCheckAt.getTime());
  const check = due.slice(0, limit);
  const later = live.filter((p) => !check.includes(p)).map((p) => p.nextCheckAt.getTime());
  // A new proof is checked on the next pass, at once.
  if (create.length) later.push(now.getTime());
  const nextDueAt = later.length ? new Date(Math.min(...later)) : null;
  return { create, remove, check, nextDueAt };
}

/** Pure: the domains ingress may route: `<orgId> <domain>` of every verified proof. */
export function provenSet(proofs: Pick<Proof, "orgId" | "domain" | "status">[]): Set<string> {
  return new Set(proofs.filter((p) => p.status === "verified").map((p) => claimKey(p)));
}
