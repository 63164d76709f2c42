import { describe, expect, it } from "vitest";
import { type Due, pickFair } from "./fair";

const due = (spec: string): Due[] => spec.split(" ").map((id) => ({ id, orgId: id[0]! }));
const ids = (d: Due[]) => d.map((x) => x.id).join(" ");
const none = new Map<string, number>();

describe("pickFair", () => {
  it.each([
    // [due (org = first letter), free, perOrg, in flight, last served, started]
    ["a1 a2 a3 a4 b1", 4, 2, {}, {}, "a1 b1 a2"],
    ["a1 a2 a3 a4 b1 c1", 4, 2, {}, {}, "a1 b1 c1 a2"],
    ["a1 a2 b1 b2 c1 c2", 3, 2, {}, {}, "a1 b1 c1"],
    ["a1 a2 b1 b2", 4, 4, {}, {}, "a1 b1 a2 b2"],
    // An organization at its cap (its slow deliveries in flight) waits; the others go.
    ["a3 a4 b1 b2", 2, 2, { a: 2 }, {}, "b1 b2"],
    ["a3 a4 b1", 4, 2, { a: 1 }, {}, "a3 b1"],
    // Round-robin: the organization served longest ago first.
    ["a1 b1 c1", 1, 2, {}, { a: 5, b: 3, c: 9 }, "b1"],
    ["a1 b1 c1", 2, 2, {}, { a: 5, c: 9 }, "b1 a1"],
    ["a1 b1", 0, 2, {}, {}, ""],
    ["", 4, 2, {}, {}, ""],
  ])("%s, %i free, %i per org, in flight %j, served %j → %s", (spec, free, perOrg, inFlight, lastServed, want) => {
    const list = spec ? due(spec) : [];
    expect(ids(pickFair(list, { free, perOrg, inFlight: new Map(Object.entries(inFlight)), lastServed: new Map(Object.entries(lastServed)) }))).toBe(want);
  });

  it("one organization with a flood takes at most its share while another has work", () => {
    const flood = Array.from({ length: 50 }, (_, i) => ({ id: `a${i}`, orgId: "a" }));
    const picked = pickFair([...flood, { id: "b1", orgId: "b" }], { free: 4, perOrg: 2, inFlight: none, lastServed: none });
    expect(ids(picked)).toBe("a0 b1 a1");
  });
});
