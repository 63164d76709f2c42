/** The tenant of keys that belong to no organization (whole-fleet keys, other controllers'): one bucket. */
export const SHARED_TENANT = "";

/**
 * Items queued by tenant, taken fairly: the next item is the oldest of the tenant holding the fewest
 * slots right now, ties going to the tenant served longest ago (round robin). One tenant with a
 * hundred queued items therefore never starves another's one.
 */
export class FairQueue<T> {
  private readonly byTenant = new Map<string, T[]>();
  /** When each tenant was last served (a counter), kept after its queue empties: the round robin. */
  private readonly served = new Map<string, number>();
  private turn = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(tenant: string, item: T): void {
    const items = this.byTenant.get(tenant);
    if (items) items.push(item);
    else this.byTenant.set(tenant, [item]);
    this.count++;
  }

  /** Takes the next item; `active` answers how many slots a tenant holds. */
  take(active: (tenant: string) => number): { tenant: string; item: T } | null {
    let best: { tenant: string; items: T[]; active: number; served: number } | null = null;
    for (const [tenant, items] of this.byTenant) {
      const a = active(tenant);
      const served = this.served.get(tenant) ?? -1;
      if (!best || a < best.active || (a === best.active && served < best.served)) best = { tenant, items, active: a, served };
    }
    if (!best) return null;
    const item = best.items.shift()!;
    if (best.items.length === 0) this.byTenant.delete(best.tenant);
    this.count--;
    // Bounded by the organizations there are; forgetting them all only resets the round robin.
    if (this.served.size > 10_000) this.served.clear();
    this.served.set(best.tenant, this.turn++);
    return { tenant: best.tenant, item };
  }

  clear(): void {
    this.byTenant.clear();
    this.count = 0;
  }
}
