import type { NodeChange } from "@levelrail/docker/swarm";
import type { NodeView } from "@levelrail/docker/swarm/nodes";
import { RESERVED_NODE_LABEL_PREFIX } from "@levelrail/spec/nodes";

/** One node's asked-for change as stored (`node_change`). */
export interface DesiredNodeChange {
  nodeId: string;
  availability: NodeView["availability"] | null;
  labels: Record<string, string> | null;
  generation: number;
  appliedGeneration: number;
  error: string | null;
}

export type NodeStep =
  /** Put the change on the node (the engine's update, at the version it read); then record `generation` applied. */
  | { kind: "apply"; nodeId: string; change: NodeChange; generation: number }
  /** The node already is as asked: record `generation` applied (a change made by hand that matched, or an apply a crash left unrecorded). */
  | { kind: "applied"; nodeId: string; generation: number }
  /** The change cannot be applied: record why, once. */
  | { kind: "fail"; nodeId: string; generation: number; error: string };

/** The product's own labels on a node (`levelrail.*`): an operator's change never removes them. */
const reserved = (labels: Record<string, string>) => Object.fromEntries(Object.entries(labels).filter(([k]) => k.toLowerCase().startsWith(RESERVED_NODE_LABEL_PREFIX)));

const sameLabels = (a: Record<string, string>, b: Record<string, string>) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
};

/** Why a worker that drives no swarm manager cannot apply anything. */
export const NOT_A_MANAGER = "the panel's Docker engine is not a swarm manager: node changes need one (see docs/operating/nodes-and-swarm.md)";

/**
 * Pure: what to do so every node is as asked. `nodes` is the swarm's node list, null when the
 * engine is no swarm manager. A node that is already as asked only gets its request recorded; one
 * that drifted (changed by hand on the engine) is changed back. A node that left the swarm fails
 * its pending request, saying so, once.
 */
export function planNodes(desired: readonly DesiredNodeChange[], nodes: readonly NodeView[] | null): NodeStep[] {
  const steps: NodeStep[] = [];
  for (const d of desired) {
    const pending = d.appliedGeneration < d.generation;
    const fail = (error: string) => {
      if (pending && d.error !== error) steps.push({ kind: "fail", nodeId: d.nodeId, generation: d.generation, error });
    };
    if (nodes === null) {
      fail(NOT_A_MANAGER);
      continue;
    }
    const node = nodes.find((n) => n.id === d.nodeId);
    if (!node) {
      fail(`node ${d.nodeId} is not in the swarm (it left or was removed); nothing was changed`);
      continue;
    }
    const change: NodeChange = {};
    if (d.availability !== null && node.availability !== d.availability) change.availability = d.availability;
    if (d.labels !== null) {
      const wanted = { ...d.labels, ...reserved(node.labels) };
      if (!sameLabels(wanted, node.labels)) change.labels = wanted;
    }
    if (change.availability !== undefined || change.labels !== undefined) steps.push({ kind: "apply", nodeId: d.nodeId, change, generation: d.generation });
    else if (pending) steps.push({ kind: "applied", nodeId: d.nodeId, generation: d.generation });
  }
  return steps;
}
