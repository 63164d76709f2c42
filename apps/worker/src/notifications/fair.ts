/** A due delivery and the organization it belongs to. */
export interface Due {
  id: string;
  orgId: string;
}

export interface FairState {
  /** How many more deliveries may start now (free slots of the dispatcher). */
  free: number;
  /** The most deliveries of one organization in flight at once. */
  perOrg: number;
  /** Deliveries in flight, per organization. */
  inFlight: ReadonlyMap<string, number>;
  /** When each organization last had a delivery started (a counter); never: absent. */
  lastServed: ReadonlyMap<string, number>;
}

/**
 * Which due deliveries to start now: round-robin across organizations, the one served longest ago
 * first, one delivery each per round; within an organization, in the order given (oldest due
 * first). No organization gets more than `perOrg` in flight, so one whose endpoints are slow holds
 * at most that many of the dispatcher's slots and the others' deliveries keep going.
 */
export function pickFair(due: readonly Due[], s: FairState): Due[] {
  const queues = new Map<string, Due[]>();
  for (const d of due) {
    const q = queues.get(d.orgId);
    if (q) q.push(d);
    else queues.set(d.orgId, [d]);
  }
  // Never served sorts first; ties keep the order the organizations first appear in.
  const orgs = [...queues.keys()].sort((a, b) => (s.lastServed.get(a) ?? -1) - (s.lastServed.get(b) ?? -1));
  const room = new Map(orgs.map((o) => [o, Math.max(0, s.perOrg - (s.inFlight.get(o) ?? 0))]));
  const picked: Due[] = [];
  for (let progress = true; progress && picked.length < s.free; ) {
    progress = false;
    for (const org of orgs) {
      if (picked.length >= s.free) break;
      const left = room.get(org) ?? 0;
      const next = left > 0 ? queues.get(org)?.shift() : undefined;
      if (!next) continue;
      room.set(org, left - 1);
      picked.push(next);
      progress = true;
    }
  }
  return picked;
}
