// The installation's nodes (docs/operating/nodes-and-swarm.md): one engine, or the nodes of a Docker Swarm.
import { z } from "zod";
import type { NodesView } from "@levelrail/docker/nodes-read";
import { type NodeChangeView, nodePatchInput } from "@levelrail/spec/nodes";
import { op } from "../operation";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const changeSchema = z
  .strictObject({
    availability: z.enum(["active", "pause", "drain"]).nullable().describe("the availability asked for; null: not asked"),
    labels: z.record(z.string(), z.string()).nullable().describe("the operator's labels asked for (the product's own `levelrail.*` are kept besides); null: not asked"),
    state: z.enum(["pending", "applied", "failed"]).describe("`pending`: not yet on the swarm; `applied`: on it (and kept so); `failed`: refused, `error` says why"),
    error: z.string().nullable(),
    requestedAt: z.string().describe("ISO 8601"),
    requestedBy: z.string().nullable(),
  })
  .describe("the change last asked of the node (`PATCH /api/v1/nodes/{id}`)");

const engineNodeSchema = z.strictObject({
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

const nodeSchema = engineNodeSchema.extend({
  change: changeSchema.nullable(),
  databases: z
    .array(z.strictObject({ name: z.string(), environmentId: z.string() }))
    .optional()
    .describe("in the list: the caller's organizations' managed databases pinned to this node (their data is there: a drain stops them); [] on one engine"),
});

export const nodesSchema = z.strictObject({
  engine: z.enum(["single", "swarm"]).describe("`single`: one Docker engine (the default); `swarm`: a Docker Swarm whose manager the panel drives"),
  nodes: z.array(nodeSchema).describe("managers first (the leader first), then by name"),
});

const checks: [Same<z.output<typeof engineNodeSchema>, NodesView["nodes"][number]>, Same<z.output<typeof changeSchema>, NodeChangeView>] = [true, true];
void checks;

export const NODE_ROUTES = [
  op({ method: "get", path: "/api/v1/nodes", id: "listNodes", tag: "Nodes", summary: "The installation's nodes: role, state, availability, labels, resources (any member of a whole organization)", ok: { status: 200, description: "the engine kind and its nodes", schema: nodesSchema } }),
  op({
    method: "patch",
    path: "/api/v1/nodes/{id}",
    id: "changeNode",
    tag: "Nodes",
    summary: "Drain, pause or activate a swarm node and set its labels (an installation administrator only: 403 for every organization role); the worker applies it. 409 on one engine, and for a drain of a node databases are pinned to unless stopDatabases is true",
    body: nodePatchInput,
    ok: { status: 202, description: "recorded; the node with its change, pending", schema: z.strictObject({ node: nodeSchema }) },
  }),
];
