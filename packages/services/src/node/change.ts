import { eq, sql } from "drizzle-orm";
import { notifyDesired } from "@levelrail/db/notify";
import { nodeChange } from "@levelrail/db/schema/nodes";
import { LevelrailError, conflict, notFound } from "@levelrail/spec/errors";
import { NODES_KEY } from "@levelrail/spec/keys";
import { nodePatchInput } from "@levelrail/spec/nodes";
import { type Ctx, parse } from "../context";
import { audit, fieldNames, sourceOf } from "../audit/record";
import { type NodeWithChange, type NodesReader, changeView, nodeAuthority } from "./list";

/** What a single engine answers a node change: there is nothing to drain to, nor any placement to label for. */
export const SINGLE_ENGINE =
  "this installation runs on one Docker engine: draining, pausing and labelling nodes need a Docker Swarm whose manager the panel drives (CONTRACT §12)";

/**
 * `PATCH /api/v1/nodes/{id}` (CONTRACT §12): records what the operator asks of one swarm node
 * (`availability`, and/or `labels`, which replace the operator's labels whole) and wakes the
 * worker, which applies it through the swarm manager and keeps it so. A field not given keeps what
 * was asked before. Needs `node.write` (admin) on a whole organization; the audit entry goes to it.
 * Resolves to the node with its change, pending.
 */
export async function changeNode<N extends { id: string; name: string }>({
  ctx,
  reader,
  nodeId,
  input,
}: {
  ctx: Pick<Ctx, "actor" | "db" | "audit">;
  reader: NodesReader<N>;
  nodeId: string;
  input: unknown;
}): Promise<{ node: NodeWithChange<N> }> {
  const orgId = nodeAuthority(ctx, "node.write", "changing the installation's nodes");
  const patch = parse(nodePatchInput, input);
  const view = await reader.nodes();
  if (view.engine !== "swarm") throw conflict(SINGLE_ENGINE);
  const node = view.nodes.find((n) => n.id === nodeId);
  if (!node) throw notFound("node");
  const by = sourceOf(ctx).actor.name;
  const row = await ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(nodeChange).where(eq(nodeChange.nodeId, nodeId)).for("update");
    const values = {
      availability: patch.availability ?? before?.availability ?? null,
      labels: patch.labels ?? before?.labels ?? null,
      error: null,
      requestedAt: sql`now()`,
      requestedBy: by,
    };
    const [saved] = await tx
      .insert(nodeChange)
      .values({ nodeId, ...values })
      .onConflictDoUpdate({ target: nodeChange.nodeId, set: { ...values, generation: sql`${nodeChange.generation} + 1` } })
      .returning();
    if (!saved) throw new LevelrailError("internal", "the node change was not saved");
    await audit(ctx, tx, { orgId, action: "node.update", target: { type: "node", id: nodeId, name: node.name }, fields: fieldNames(patch) });
    await notifyDesired(tx, NODES_KEY);
    return saved;
  });
  return { node: { ...node, change: changeView(row) } };
}
