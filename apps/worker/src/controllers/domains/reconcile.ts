import { challengeName } from "@levelrail/spec/domains";
import type { Controller, ReconcileResult } from "../../reconcile/controller";
import type { TxtLookup } from "./lookup";
import { type Checked, type Claim, type Proof, type ProofPolicy, afterCheck, planProofs, provenSet } from "./plan";

export interface ProofStore {
  /** Every domain that needs a proof (outside `*.localhost` and the base domains): a service's, or an email domain an organization's single sign-on signs in; with the organization. */
  claims(): Promise<Claim[]>;
  proofs(): Promise<Proof[]>;
  create(claims: Claim[], now: Date): Promise<void>;
  remove(ids: string[]): Promise<void>;
  /** The organization's token (made when missing). */
  token(orgId: string): Promise<string>;
  /**
   * Records a check asked at `now` (a "Check now" since then keeps the proof due). Returns false
   * when the proof could not become verified because another organization holds the domain
   * verified (it stays as it was, with that as its result).
   */
  record(id: string, checked: Checked, now: Date): Promise<boolean>;
}

export interface DomainsControllerOptions {
  store: ProofStore;
  lookup: TxtLookup;
  policy: ProofPolicy;
  now: () => Date;
  /** Called when the set of routable domains changed: ingress recomputes its map. */
  routesChanged: () => void;
  /** Checks per pass (the rest on the next one, at once). */
  batch?: number;
  /** The longest a pass waits for the next one (the resync wakes it anyway). */
  maxRequeueMs?: number;
}

/**
 * Whole-fleet: every domain that needs a proof has one, and each due proof is checked (its TXT
 * record looked up). Observe (claims, proofs), plan (pure: what to create, remove and check),
 * execute (look up, record). The pass comes back when the next proof is due.
 */
export function domainsController(o: DomainsControllerOptions): Controller {
  const batch = o.batch ?? 16;
  const maxRequeueMs = o.maxRequeueMs ?? 60_000;
  return {
    name: "domains",
    async reconcile(): Promise<ReconcileResult> {
      const now = o.now();
      const [claims, proofs] = await Promise.all([o.store.claims(), o.store.proofs()]);
      const plan = planProofs(claims, proofs, now, batch);
      const before = provenSet(proofs);
      if (plan.create.length) await o.store.create(plan.create, now);
      if (plan.remove.length) await o.store.remove(plan.remove);
      const after = new Map(proofs.map((p) => [p.id, p]));
      // The batch's lookups run at once: a resolver that does not answer costs one timeout, not one per domain.
      const tokens = new Map<string, Promise<string>>();
      const tokenOf = (orgId: string) => tokens.get(orgId) ?? tokens.set(orgId, o.store.token(orgId)).get(orgId)!;
      await Promise.all(
        plan.check.map(async (p) => {
          const name = challengeName(p.domain);
          const token = await tokenOf(p.orgId);
          const asked = o.now();
          const checked = afterCheck(p, await o.lookup.check(name, token), asked, o.policy, name);
          if (await o.store.record(p.id, checked, asked)) after.set(p.id, { ...p, status: checked.status });
        }),
      );
      const proven = provenSet([...after.values()].filter((p) => !plan.remove.includes(p.id)));
      if (plan.create.length || proven.size !== before.size || [...proven].some((k) => !before.has(k))) o.routesChanged();
      const left = await o.store.proofs();
      const next = Math.min(...left.map((p) => p.nextCheckAt.getTime()), now.getTime() + maxRequeueMs);
      return { requeueAfterMs: Math.max(250, Math.min(maxRequeueMs, next - o.now().getTime())) };
    },
  };
}
