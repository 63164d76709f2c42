import { describe, expect, it } from "vitest";
import { type EngineInfo, type EngineNode, engineKind, nodeView, nodesView } from "./nodes";

// Shaped like `docker node inspect` on Docker 20.10.
const leader: EngineNode = {
  ID: "m1id",
  Spec: { Role: "manager", Availability: "active", Labels: { zone: "a" } },
  Description: {
    Hostname: "vm1",
    Platform: { Architecture: "x86_64", OS: "linux" },
    Resources: { NanoCPUs: 2_000_000_000, MemoryBytes: 4_294_967_296 },
    Engine: { EngineVersion: "20.10.24+dfsg1" },
  },
  Status: { State: "ready", Addr: "10.231.0.11" },
  ManagerStatus: { Leader: true, Reachability: "reachable", Addr: "10.231.0.11:2377" },
};
const worker: EngineNode = {
  ID: "w2id",
  Spec: { Role: "worker", Availability: "drain", Labels: {} },
  Description: { Hostname: "vm2", Resources: { NanoCPUs: 500_000_000, MemoryBytes: 1_073_741_824 } },
  Status: { State: "down", Addr: "10.231.0.12", Message: "heartbeat failure" },
};

describe("nodeView", () => {
  it.each([
    [
      "the leading manager",
      leader,
      {
        id: "m1id", name: "vm1", hostname: "vm1", role: "manager", leader: true, reachability: "reachable", state: "ready", message: "",
        availability: "active", address: "10.231.0.11", labels: { zone: "a" }, resources: { cpus: 2, memoryBytes: 4_294_967_296 },
        platform: "linux/x86_64", engineVersion: "20.10.24+dfsg1",
      },
    ],
    [
      "a drained worker that is down",
      worker,
      {
        id: "w2id", name: "vm2", role: "worker", leader: false, reachability: null, state: "down", message: "heartbeat failure",
        availability: "drain", address: "10.231.0.12", labels: {}, resources: { cpus: 0.5, memoryBytes: 1_073_741_824 }, platform: "",
      },
    ],
    [
      "a manager whose status address is 0.0.0.0: its raft address without the port",
      { ...leader, Status: { State: "ready", Addr: "0.0.0.0" }, ManagerStatus: { Leader: false, Reachability: "unreachable", Addr: "10.231.0.13:2377" } },
      { address: "10.231.0.13", leader: false, reachability: "unreachable" },
    ],
    ["an IPv6 manager address", { ...leader, Status: { State: "ready", Addr: "0.0.0.0" }, ManagerStatus: { Addr: "[fd00::1]:2377" } }, { address: "fd00::1", reachability: "unknown" }],
    ["a spec name wins over the hostname", { ...worker, Spec: { ...worker.Spec, Name: "edge-1" } }, { name: "edge-1", hostname: "vm2" }],
    [
      "an engine that omits nearly everything: nothing invented but safe defaults",
      { ID: "x" },
      { id: "x", name: "x", hostname: "", role: "worker", state: "unknown", availability: "active", address: "", labels: {}, resources: { cpus: 0, memoryBytes: 0 } },
    ],
    ["labels null", { ...worker, Spec: { Role: "worker", Labels: null } }, { labels: {} }],
    ["an unknown role or state is not passed through", { ID: "y", Spec: { Role: "boss", Availability: "gone" }, Status: { State: "exploded" } }, { role: "worker", availability: "active", state: "unknown" }],
  ] as const)("%s", (_, input, want) => {
    expect(nodeView(input as EngineNode)).toMatchObject(want);
  });
});

describe("engineKind and nodesView", () => {
  const single: EngineInfo = { ID: "E1", Name: "host", NCPU: 2, MemTotal: 25_000_000_000, ServerVersion: "20.10.24", OSType: "linux", Architecture: "x86_64", Swarm: { LocalNodeState: "inactive" } };
  const mgr: EngineInfo = { ...single, Swarm: { LocalNodeState: "active", ControlAvailable: true, NodeID: "m1id" } };

  it.each([
    ["no swarm", single, "single"],
    ["a swarm manager", mgr, "swarm-manager"],
    ["a swarm worker", { ...single, Swarm: { LocalNodeState: "active", ControlAvailable: false } }, "swarm-worker"],
    ["a node still joining", { ...single, Swarm: { LocalNodeState: "pending" } }, "single"],
    ["an engine without Swarm in its info", { ID: "x" }, "single"],
  ] as const)("%s", (_, info, want) => {
    expect(engineKind(info)).toBe(want);
  });

  it("one engine answers itself as its one ready node", () => {
    expect(nodesView(single, null)).toEqual({
      engine: "single",
      nodes: [expect.objectContaining({ id: "E1", name: "host", role: "manager", state: "ready", resources: { cpus: 2, memoryBytes: 25_000_000_000 }, platform: "linux/x86_64" })],
    });
  });

  it("a swarm manager lists its nodes: the leader first, then managers, then workers by name", () => {
    const w1: EngineNode = { ...worker, ID: "w1id", Description: { Hostname: "vm0" } };
    const m2: EngineNode = { ...leader, ID: "m2id", Description: { Hostname: "vm9" }, ManagerStatus: { Leader: false, Reachability: "reachable" } };
    const v = nodesView(mgr, [worker, w1, m2, leader]);
    expect(v.engine).toBe("swarm");
    expect(v.nodes.map((n) => n.id)).toEqual(["m1id", "m2id", "w1id", "w2id"]);
  });
});
