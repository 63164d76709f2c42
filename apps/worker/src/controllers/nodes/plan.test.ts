import { describe, expect, it } from "vitest";
import type { NodeView } from "@levelrail/docker/swarm/nodes";
import { type DesiredNodeChange, NOT_A_MANAGER, planNodes } from "./plan";

const node = (id: string, over: Partial<NodeView> = {}): NodeView => ({
  id,
  name: id,
  hostname: id,
  role: "worker",
  leader: false,
  reachability: null,
  state: "ready",
  message: "",
  availability: "active",
  address: "10.0.0.2",
  labels: {},
  resources: { cpus: 2, memoryBytes: 1 << 30 },
  platform: "linux/x86_64",
  engineVersion: "20.10",
  ...over,
});
const want = (nodeId: string, over: Partial<DesiredNodeChange> = {}): DesiredNodeChange => ({
  nodeId,
  availability: null,
  labels: null,
  generation: 1,
  appliedGeneration: 0,
  error: null,
  ...over,
});

describe("planNodes", () => {
  it("drains a node asked to drain, and only changes what was asked", () => {
    expect(planNodes([want("a", { availability: "drain" })], [node("a", { labels: { zone: "x" } })])).toEqual([
      { kind: "apply", nodeId: "a", change: { availability: "drain" }, generation: 1 },
    ]);
  });

  it("replaces the operator's labels whole but keeps the product's own levelrail.* labels", () => {
    const n = node("a", { labels: { zone: "x", old: "1", "levelrail.db": "pg1" } });
    expect(planNodes([want("a", { labels: { zone: "y" } })], [n])).toEqual([
      { kind: "apply", nodeId: "a", change: { labels: { zone: "y", "levelrail.db": "pg1" } }, generation: 1 },
    ]);
  });

  it("records a request applied when the node already is as asked, and does nothing once recorded", () => {
    const n = node("a", { availability: "drain", labels: { zone: "x" } });
    const asked = want("a", { availability: "drain", labels: { zone: "x" } });
    expect(planNodes([asked], [n])).toEqual([{ kind: "applied", nodeId: "a", generation: 1 }]);
    expect(planNodes([{ ...asked, appliedGeneration: 1 }], [n])).toEqual([]);
  });

  it("puts back a node changed by hand after its request was applied", () => {
    const asked = want("a", { availability: "drain", generation: 3, appliedGeneration: 3 });
    expect(planNodes([asked], [node("a", { availability: "active" })])).toEqual([
      { kind: "apply", nodeId: "a", change: { availability: "drain" }, generation: 3 },
    ]);
  });

  it("label order does not count as a difference", () => {
    const asked = want("a", { labels: { b: "2", a: "1" }, appliedGeneration: 1 });
    expect(planNodes([asked], [node("a", { labels: { a: "1", b: "2" } })])).toEqual([]);
  });

  it("fails a pending request of a node that left the swarm, once", () => {
    const asked = want("gone", { availability: "drain" });
    const [step] = planNodes([asked], [node("a")]);
    expect(step).toMatchObject({ kind: "fail", nodeId: "gone", generation: 1 });
    expect(step?.kind === "fail" && step.error).toMatch(/not in the swarm/);
    expect(planNodes([{ ...asked, error: step?.kind === "fail" ? step.error : "" }], [node("a")])).toEqual([]);
    // An applied one is history, not a failure.
    expect(planNodes([{ ...asked, appliedGeneration: 1 }], [node("a")])).toEqual([]);
  });

  it("fails pending requests when the engine is no swarm manager", () => {
    expect(planNodes([want("a", { availability: "pause" })], null)).toEqual([{ kind: "fail", nodeId: "a", generation: 1, error: NOT_A_MANAGER }]);
  });
});
