import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentNodes, laggingEdges, readEdgeAcks } from "./edge-acks";

describe("the node edges' acknowledgements", () => {
  it("a node that asked lately and has an older generation is behind; a silent one is not waited for", () => {
    const now = 1_000_000;
    const acks = { nodes: { a: { generation: 7, seenAt: now - 1_000 }, b: { generation: 6, seenAt: now - 2_000 }, c: { generation: 2, seenAt: now - 60_000 } } };
    expect(laggingEdges(acks, 7, now)).toEqual(["b"]);
    expect(laggingEdges(acks, 8, now)).toEqual(["a", "b"]);
    expect(laggingEdges(null, 8, now)).toEqual([]);
  });

  it("every ready node running an agent is waited for, even one that has not asked lately or ever (the overlay after a manager restart)", () => {
    const now = 1_000_000;
    const acks = { nodes: { a: { generation: 7, seenAt: now - 60_000 }, c: { generation: 2, seenAt: now - 60_000 } } };
    expect(laggingEdges(acks, 7, now, 15_000, ["a", "b"])).toEqual(["b"]); // a has it; b never said
    expect(laggingEdges(acks, 8, now, 15_000, ["a", "b"])).toEqual(["a", "b"]); // c runs no agent now
    expect(laggingEdges(null, 8, now, 15_000, ["b"])).toEqual(["b"]);
  });

  it("the nodes running an agent: its running tasks, and those the swarm wants running, on ready nodes; no agents' service, none", async () => {
    const swarm = {
      inspectService: async (name: string) => (name === "lr-node-agent" ? ({ id: "svc" } as never) : null),
      listTasks: async () =>
        [
          { nodeId: "n1", state: "running", desiredState: "running" },
          { nodeId: "n2", state: "running", desiredState: "running" },
          { nodeId: "n3", state: "failed", desiredState: "shutdown" },
          { nodeId: null, state: "pending", desiredState: "running" },
          // A node whose agent the swarm is replacing (after the manager's engine restarted): the
          // old task shutting down, the new one not yet seen running. Still an agent's node.
          { nodeId: "n4", state: "running", desiredState: "shutdown" },
          { nodeId: "n5", state: "shutdown", desiredState: "shutdown" },
          { nodeId: "n5", state: "assigned", desiredState: "running" },
        ] as never,
      listNodes: async () => [{ id: "n1", state: "ready" }, { id: "n2", state: "down" }, { id: "n3", state: "ready" }, { id: "n4", state: "ready" }, { id: "n5", state: "ready" }] as never,
    };
    expect(await agentNodes(swarm, "lr-node-agent")).toEqual(["n1", "n4", "n5"]);
    expect(await agentNodes(swarm, "other-node-agent")).toEqual([]);
  });

  it("reads the file the manager's mesh DNS writes; a missing or broken one is none", () => {
    const dir = mkdtempSync(join(tmpdir(), "lr-acks-"));
    try {
      const file = join(dir, "edge-acks.json");
      expect(readEdgeAcks(file)).toBeNull();
      writeFileSync(file, "{not json");
      expect(readEdgeAcks(file)).toBeNull();
      writeFileSync(file, JSON.stringify({ nodes: { n1: { generation: 3, seenAt: 5 } } }));
      expect(readEdgeAcks(file)).toEqual({ nodes: { n1: { generation: 3, seenAt: 5 } } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
