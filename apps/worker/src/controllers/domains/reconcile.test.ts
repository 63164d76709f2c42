import { describe, expect, it } from "vitest";
import type { Checked, Claim, Lookup, Proof } from "./plan";
import { DEFAULT_PROOF_POLICY } from "./plan";
import { type ProofStore, domainsController } from "./reconcile";

/** The proofs in memory, as the PostgreSQL store keeps them. */
class FakeStore implements ProofStore {
  rows = new Map<string, Proof & { result?: string }>();
  claimed: Claim[] = [];
  tokenCalls = 0;
  private seq = 0;
  async claims() {
    return this.claimed;
  }
  async proofs() {
    return [...this.rows.values()];
  }
  async create(claims: Claim[], now: Date) {
    for (const c of claims) {
      const id = `p${++this.seq}`;
      this.rows.set(id, { id, ...c, status: "pending", lastSeenAt: null, misses: 0, nextCheckAt: now });
    }
  }
  async remove(ids: string[]) {
    for (const id of ids) this.rows.delete(id);
  }
  async token(orgId: string) {
    this.tokenCalls++;
    return `token-${orgId}`;
  }
  async record(id: string, c: Checked) {
    const p = this.rows.get(id)!;
    this.rows.set(id, { ...p, status: c.status, lastSeenAt: c.lastSeenAt, misses: c.misses, nextCheckAt: c.nextCheckAt, result: c.result });
    return true;
  }
}

describe("domains controller", () => {
  it("makes a proof for a new domain, checks it, and wakes ingress once it is proven", async () => {
    let now = new Date("2026-12-02T00:00:00Z");
    const store = new FakeStore();
    const records = new Map<string, string>();
    const asked: string[] = [];
    const lookup = {
      async check(name: string, token: string): Promise<Lookup> {
        asked.push(name);
        return records.get(name) === token ? { kind: "found" } : { kind: "missing", result: `no TXT record at ${name}` };
      },
    };
    let woken = 0;
    const ctl = domainsController({ store, lookup, policy: DEFAULT_PROOF_POLICY, now: () => now, routesChanged: () => woken++ });
    store.claimed = [{ orgId: "a", domain: "shop.example.com" }, { orgId: "a", domain: "www.example.com" }];

    // First pass: the proofs exist and are checked on the next pass, at once.
    expect(await ctl.reconcile("domains")).toEqual({ requeueAfterMs: 250 });
    expect(store.rows.size).toBe(2);
    expect(woken).toBe(1);
    await ctl.reconcile("domains");
    expect(asked.sort()).toEqual(["_levelrail-challenge.shop.example.com", "_levelrail-challenge.www.example.com"]);
    expect(store.tokenCalls).toBe(1); // one token per organization and pass
    expect([...store.rows.values()].map((p) => p.status)).toEqual(["pending", "pending"]);

    // A minute later the record is there: verified, ingress woken, back in a minute for the other.
    records.set("_levelrail-challenge.shop.example.com", "token-a");
    now = new Date(now.getTime() + 60_000);
    expect(await ctl.reconcile("domains")).toEqual({ requeueAfterMs: 60_000 });
    expect([...store.rows.values()].find((p) => p.domain === "shop.example.com")?.status).toBe("verified");
    expect(woken).toBe(2);

    // Nothing due: no lookup, no wake.
    asked.length = 0;
    await ctl.reconcile("domains");
    expect(asked).toEqual([]);
    expect(woken).toBe(2);

    // The pending domain leaves the service: its proof goes; the verified one stays.
    store.claimed = [];
    await ctl.reconcile("domains");
    expect([...store.rows.values()].map((p) => p.domain)).toEqual(["shop.example.com"]);
  });
});
