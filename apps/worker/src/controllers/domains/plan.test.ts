import { describe, expect, it } from "vitest";
import { type Lookup, type Proof, type ProofPolicy, afterCheck, planProofs, provenSet } from "./plan";

const policy: ProofPolicy = { pendingBaseMs: 60_000, pendingMaxMs: 900_000, verifiedRecheckMs: 3_600_000, lostRecheckMs: 300_000, graceMs: 72 * 3_600_000, failedRecheckMs: 3_600_000 };
const t0 = new Date("2026-12-02T00:00:00Z");
const plus = (ms: number, from = t0) => new Date(from.getTime() + ms);
const H = 3_600_000;
const found: Lookup = { kind: "found" };
const missing: Lookup = { kind: "missing", result: "no TXT record at _levelrail-challenge.shop.example.com" };
const outage: Lookup = { kind: "error", result: "the DNS lookup failed (ETIMEOUT)" };
const name = "_levelrail-challenge.shop.example.com";

describe("afterCheck: one proof's next state", () => {
  it.each<[string, Pick<Proof, "status" | "lastSeenAt" | "misses">, Lookup, Date, { status: string; nextInMs: number; lastSeenAt: Date | null; verifiedNow: boolean; misses: number }]>([
    ["pending, found: verified, re-checked hourly", { status: "pending", lastSeenAt: null, misses: 3 }, found, t0, { status: "verified", nextInMs: H, lastSeenAt: t0, verifiedNow: true, misses: 0 }],
    ["pending, first miss: a minute later", { status: "pending", lastSeenAt: null, misses: 0 }, missing, t0, { status: "pending", nextInMs: 60_000, lastSeenAt: null, verifiedNow: false, misses: 1 }],
    ["pending, third miss: doubling", { status: "pending", lastSeenAt: null, misses: 2 }, missing, t0, { status: "pending", nextInMs: 240_000, lastSeenAt: null, verifiedNow: false, misses: 3 }],
    ["pending, many misses: capped at 15 min", { status: "pending", lastSeenAt: null, misses: 40 }, missing, t0, { status: "pending", nextInMs: 900_000, lastSeenAt: null, verifiedNow: false, misses: 41 }],
    ["pending, resolver down: pending, same backoff", { status: "pending", lastSeenAt: null, misses: 0 }, outage, t0, { status: "pending", nextInMs: 60_000, lastSeenAt: null, verifiedNow: false, misses: 1 }],
    ["verified, still there: hourly", { status: "verified", lastSeenAt: plus(-H), misses: 0 }, found, t0, { status: "verified", nextInMs: H, lastSeenAt: t0, verifiedNow: false, misses: 0 }],
    ["verified, record gone: keeps routing, re-checked in 5 min", { status: "verified", lastSeenAt: plus(-H), misses: 0 }, missing, t0, { status: "verified", nextInMs: 300_000, lastSeenAt: plus(-H), verifiedNow: false, misses: 1 }],
    ["verified, gone for a while: back off up to hourly", { status: "verified", lastSeenAt: plus(-10 * H), misses: 9 }, missing, t0, { status: "verified", nextInMs: H, lastSeenAt: plus(-10 * H), verifiedNow: false, misses: 10 }],
    ["verified, near the grace's end: checked right at it", { status: "verified", lastSeenAt: plus(-72 * H + 60_000), misses: 30 }, missing, t0, { status: "verified", nextInMs: 60_000, lastSeenAt: plus(-72 * H + 60_000), verifiedNow: false, misses: 31 }],
    ["verified, gone past the grace: failed", { status: "verified", lastSeenAt: plus(-72 * H), misses: 30 }, missing, t0, { status: "failed", nextInMs: H, lastSeenAt: plus(-72 * H), verifiedNow: false, misses: 31 }],
    ["verified, resolver down past the grace: failed too", { status: "verified", lastSeenAt: plus(-73 * H), misses: 30 }, outage, t0, { status: "failed", nextInMs: H, lastSeenAt: plus(-73 * H), verifiedNow: false, misses: 31 }],
    ["failed, still gone: hourly", { status: "failed", lastSeenAt: plus(-80 * H), misses: 31 }, missing, t0, { status: "failed", nextInMs: H, lastSeenAt: plus(-80 * H), verifiedNow: false, misses: 32 }],
    ["failed, record back: verified again", { status: "failed", lastSeenAt: plus(-80 * H), misses: 31 }, found, t0, { status: "verified", nextInMs: H, lastSeenAt: t0, verifiedNow: true, misses: 0 }],
  ])("%s", (_, proof, lookup, now, want) => {
    const c = afterCheck(proof, lookup, now, policy, name);
    expect({ status: c.status, nextInMs: c.nextCheckAt.getTime() - now.getTime(), lastSeenAt: c.lastSeenAt, verifiedNow: c.verifiedNow, misses: c.misses }).toEqual(want);
    expect(c.result).toContain(lookup.kind === "found" ? name : lookup.result);
  });

  it("a domain that loses its record keeps routing exactly the grace period, then stops", () => {
    const short = { ...policy, graceMs: 10 * 60_000, lostRecheckMs: 60_000, verifiedRecheckMs: 3 * 60_000 };
    let p: Pick<Proof, "status" | "lastSeenAt" | "misses"> = { status: "verified", lastSeenAt: t0, misses: 0 };
    let now = plus(60_000);
    const seen: string[] = [];
    while (p.status === "verified" && now.getTime() < plus(H).getTime()) {
      const c = afterCheck(p, missing, now, short, name);
      p = c;
      seen.push(`${(now.getTime() - t0.getTime()) / 60_000}:${c.status}`);
      now = c.nextCheckAt;
    }
    // Checks at 1, 2, 4, 7 min (backoff capped at 3 min), then at the grace's end (10 min): failed.
    expect(seen).toEqual(["1:verified", "2:verified", "4:verified", "7:verified", "10:failed"]);
  });
});

const proof = (o: Partial<Proof> & Pick<Proof, "id" | "domain">): Proof => ({ orgId: "org-a", status: "pending", lastSeenAt: null, misses: 0, nextCheckAt: t0, ...o });

describe("planProofs: one pass's work", () => {
  it("creates a proof for each new claim, once, in lower case", () => {
    const p = planProofs([{ orgId: "org-a", domain: "Shop.example.com" }, { orgId: "org-a", domain: "shop.example.com" }, { orgId: "org-b", domain: "shop.example.com" }], [], t0, 10);
    expect(p.create).toEqual([{ orgId: "org-a", domain: "shop.example.com" }, { orgId: "org-b", domain: "shop.example.com" }]);
    expect(p.nextDueAt).toEqual(t0);
  });

  it("removes unclaimed proofs that prove nothing; keeps an unclaimed verified one (the organization still owns it)", () => {
    const p = planProofs([], [proof({ id: "1", domain: "a.example.com" }), proof({ id: "2", domain: "b.example.com", status: "failed" }), proof({ id: "3", domain: "c.example.com", status: "verified", nextCheckAt: plus(H) })], t0, 10);
    expect(p.remove).toEqual(["1", "2"]);
    expect(p.check).toEqual([]);
    expect(p.nextDueAt).toEqual(plus(H));
  });

  it("checks the due proofs, most overdue first, at most `limit`; the next due time covers the rest", () => {
    const claims = ["a", "b", "c", "d"].map((x) => ({ orgId: "org-a", domain: `${x}.example.com` }));
    const proofs = [
      proof({ id: "a", domain: "a.example.com", nextCheckAt: plus(-1000) }),
      proof({ id: "b", domain: "b.example.com", nextCheckAt: plus(-5000) }),
      proof({ id: "c", domain: "c.example.com", nextCheckAt: plus(-100) }),
      proof({ id: "d", domain: "d.example.com", nextCheckAt: plus(30_000) }),
    ];
    const p = planProofs(claims, proofs, t0, 2);
    expect(p.check.map((x) => x.id)).toEqual(["b", "a"]);
    expect(p.nextDueAt).toEqual(plus(-100));
    expect(p.create).toEqual([]);
  });

  it("routes only verified proofs, per organization", () => {
    expect(provenSet([proof({ id: "1", domain: "a.example.com", status: "verified" }), proof({ id: "2", domain: "b.example.com" }), proof({ id: "3", domain: "c.example.com", status: "failed" })])).toEqual(new Set(["org-a a.example.com"]));
  });
});
