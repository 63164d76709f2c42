// The installation's nodes (CONTRACT §12): one engine, or the nodes of a Docker Swarm.
import { z } from "zod";
import type { NodesView } from "@levelrail/docker/nodes-read";
import { op } from "../operation";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const nodeSchema = z.strictObject({
  id: z.string().describe("the engine's node id (one engine: its engine id)"),
  name: z.string(),
  hostname: z.string(),
  role: z.enum(["manager", "worker"]),
  leader: z.boolean().describe("whether it leads the swarm's managers (one engine: always)"),
  reachability: z.enum(["reachable", "unreachable", "unknown"]).nullable().describe("a manager's among the managers; null for a worker and for one engine"),
  state: z.enum(["ready", "down", "disconnected", "unknown"]),
  message: z.string().describe("the engine's word on its state (`heartbeat failure`), empty when none"),
  availability: z.enum(["active", "pause", "drain"]),
  address: z.string().describe("where the other nodes reach it; empty for one engine"),
  labels: z.record(z.string(), z.string()).describe("the node's labels, which placement selects on"),
  resources: z.strictObject({ cpus: z.number(), memoryBytes: z.number() }),
  platform: z.string().describe("`linux/x86_64`"),
  engineVersion: z.string(),
});

export const nodesSchema = z.strictObject({
  engine: z.enum(["single", "swarm"]).describe("`single`: one Docker engine (the default); `swarm`: a Docker Swarm whose manager the panel drives"),
  nodes: z.array(nodeSchema).describe("managers first (the leader first), then by name"),
});

const checks: [Same<z.output<typeof nodesSchema>, NodesView>] = [true];
void checks;

export const NODE_ROUTES = [
  op({ method: "get", path: "/api/v1/nodes", id: "listNodes", tag: "Nodes", summary: "The installation's nodes: role, state, availability, labels, resources (an admin of an organization)", ok: { status: 200, description: "the engine kind and its nodes", schema: nodesSchema } }),
];
