import { describe, expect, it } from "vitest";
import { FairQueue } from "./fair-queue";

/** `queued`: tenant → items, pushed in this order; `active`: slots each tenant holds. */
const rows: { name: string; queued: [string, string[]][]; active?: Record<string, number>; takes: string[] }[] = [
  { name: "one tenant: first in, first out", queued: [["a", ["a1", "a2", "a3"]]], takes: ["a1", "a2", "a3"] },
  {
    name: "two tenants alternate, whatever their queue lengths",
    queued: [["a", ["a1", "a2", "a3", "a4"]], ["b", ["b1", "b2"]]],
    takes: ["a1", "b1", "a2", "b2", "a3", "a4"],
  },
  {
    name: "a tenant with a hundred queued items does not starve another's one",
    queued: [["a", Array.from({ length: 100 }, (_, i) => `a${i}`)], ["b", ["b1"]]],
    takes: ["a0", "b1", "a1", "a2"],
  },
  {
    name: "the tenant holding the fewest slots goes first",
    queued: [["a", ["a1", "a2"]], ["b", ["b1"]], ["c", ["c1"]]],
    active: { a: 0, b: 3, c: 1 },
    takes: ["a1", "a2", "c1", "b1"],
  },
  {
    name: "three tenants take turns",
    queued: [["a", ["a1", "a2"]], ["b", ["b1", "b2"]], ["c", ["c1", "c2"]]],
    takes: ["a1", "b1", "c1", "a2", "b2", "c2"],
  },
];

describe("FairQueue", () => {
  for (const row of rows) {
    it(row.name, () => {
      const q = new FairQueue<string>();
      for (const [tenant, items] of row.queued) for (const item of items) q.push(tenant, item);
      const taken: string[] = [];
      for (const _ of row.takes) taken.push(q.take((t) => row.active?.[t] ?? 0)?.item ?? "none");
      expect(taken).toEqual(row.takes);
    });
  }

  it("remembers who was served after a tenant's queue empties: the other goes next", () => {
    const q = new FairQueue<string>();
    q.push("a", "a1");
    expect(q.take(() => 0)?.item).toBe("a1");
    q.push("a", "a2");
    q.push("b", "b1");
    expect([q.take(() => 0)?.item, q.take(() => 0)?.item]).toEqual(["b1", "a2"]);
  });

  it("counts its items and is empty after clear", () => {
    const q = new FairQueue<string>();
    q.push("a", "a1");
    q.push("b", "b1");
    expect(q.size).toBe(2);
    q.clear();
    expect(q.size).toBe(0);
    expect(q.take(() => 0)).toBeNull();
  });
});
