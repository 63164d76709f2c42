import { existsSync, readFileSync } from "node:fs";
import type { SwarmPort } from "@levelrail/docker/swarm";
import { type EdgeAcks, edgeAcksSchema } from "@levelrail/spec/dataplane";

/** How long after its last read of the feed an agent still counts (a node whose agent stopped asking is not waited for). */
export const ACK_FRESH_MS = 15_000;

/** The agents' acknowledgements (`EDGE_ACKS_FILE`); null when none was written or it cannot be read. */
export function readEdgeAcks(file: string): EdgeAcks | null {
  if (!existsSync(file)) return null;
  try {
    const parsed = edgeAcksSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Pure: the nodes whose edge has not applied `generation` yet: each node of `agentNodes` (a ready
 * node the swarm runs an agent on), whatever it said last or if it never did (after the manager's
 * engine restarts, an agent cannot reach the feed for about 30 s, until the overlay's gossip is
 * back, and the acknowledgements it made before are old), and any other node that asked lately.
 */
export function laggingEdges(acks: EdgeAcks | null, generation: number, now: number, freshMs = ACK_FRESH_MS, agentNodes: readonly string[] = []): string[] {
  const nodes = acks?.nodes ?? {};
  const asking = Object.entries(nodes)
    .filter(([, n]) => now - n.seenAt < freshMs)
    .map(([id]) => id);
  return [...new Set([...agentNodes, ...asking])].filter((id) => (nodes[id]?.generation ?? -1) < generation).sort();
}

/**
 * The ready nodes the swarm runs a node agent on, or is starting one on (`service`: the agents'
 * service; none: none). A task the swarm wants running counts whatever state the manager last
 * heard: after the manager's engine restarts, the swarm replaces a node's agent task, and for some
 * seconds the manager sees the new one only as assigned or starting (it may already run) and the
 * old one shutting down. Counting only `running` then left that node out, and a release removed
 * its old tasks while the node's edge still named them (it cannot read the feed until the overlay's
 * gossip is back): its Caddy failed every request for ~18 s (node-edge.swarm.test.ts).
 */
export async function agentNodes(swarm: Pick<SwarmPort, "inspectService" | "listTasks" | "listNodes">, service: string): Promise<string[]> {
  const svc = await swarm.inspectService(service);
  if (!svc) return [];
  const [tasks, nodes] = await Promise.all([swarm.listTasks(svc.id), swarm.listNodes()]);
  const ready = new Set(nodes.filter((n) => n.state === "ready").map((n) => n.id));
  const wanted = (t: { state: string; desiredState: string }) => t.state === "running" || t.desiredState === "running";
  return [...new Set(tasks.filter((t) => wanted(t) && t.nodeId && ready.has(t.nodeId)).map((t) => t.nodeId!))].sort();
}
