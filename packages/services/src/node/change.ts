import { eq, sql } from "drizzle-orm";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { notifyDesired } from "@levelrail/db/notify";
import { nodeChange } from "@levelrail/db/schema/nodes";
import { LevelrailError, conflict, notFound } from "@levelrail/spec/errors";
import { NODES_KEY } from "@levelrail/spec/keys";
import { nodePatchInput } from "@levelrail/spec/nodes";
import { type Ctx, parse } from "../context";
import { fieldNames, recordAudit, sourceOf } from "../audit/record";
import { authorizeInstallation } from "../org/permissions";
import { type NodeWithChange, type NodesReader, changeView } from "./list";

/** What a single engine answers a node change: there is nothing to drain to, nor any placement to label for. */
export const SINGLE_ENGINE =
  "this installation runs on one Docker engine: draining, pausing and labelling nodes need a Docker Swarm whose manager the panel drives (see docs/operating/nodes-and-swarm.md)";

/**
 * `PATCH /api/v1/nodes/{id}`: records what the operator asks of one swarm node
 * (`availability`, and/or `labels`, which replace the operator's labels whole) and wakes the
 * worker, which applies it through the swarm manager and keeps it so. A field not given keeps what
 * was asked before. Needs an installation administrator (`node.write`): no organization role, however
 * high, changes what every organization runs on. The audit entry is the installation's (no
 * organization), with one more in each organization that has a database pinned to the node, the
 * actor named as the installation administrator. Resolves to the node with its change, pending.
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
  authorizeInstallation(ctx, "node.write");
  const patch = parse(nodePatchInput, input);
  const view = await reader.nodes();
  if (view.engine !== "swarm") throw conflict(SINGLE_ENGINE);
  const node = view.nodes.find((n) => n.id === nodeId);
  if (!node) throw notFound("node");
  const { stopDatabases, ...asked } = patch;
  if (asked.availability === "drain" && stopDatabases !== true) await refuseStoppingDatabases(ctx, node);
  const source = sourceOf(ctx);
  const by = source.actor.name;
  const asAdmin = { ...source, actor: { ...source.actor, name: `${by} (installation administrator)` } };
  const row = await ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(nodeChange).where(eq(nodeChange.nodeId, nodeId)).for("update");
    const values = {
      availability: asked.availability ?? before?.availability ?? null,
      labels: asked.labels ?? before?.labels ?? null,
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
    const change = { action: "node.update", target: { type: "node", id: nodeId, name: node.name }, fields: fieldNames(asked) };
    const affected = await tx.selectDistinct({ orgId: managedDatabase.orgId }).from(managedDatabase).where(eq(managedDatabase.nodeId, nodeId));
    for (const orgId of [null, ...affected.map((a) => a.orgId).sort()]) await recordAudit(tx, asAdmin, { orgId, ...change });
    await notifyDesired(tx, NODES_KEY);
    return saved;
  });
  return { node: { ...node, change: changeView(row) } };
}

/**
 * A drain moves every task off a node, but a pinned database's task cannot go anywhere else (its data
 * is on that node): it stops until the node is active again. Refused (409 naming `stopDatabases`)
 * when any database is pinned there; the caller's are named, another organization's only counted
 * as "of other organizations" (the node is shared, their names are not).
 */
async function refuseStoppingDatabases(ctx: Pick<Ctx, "actor" | "db">, node: { id: string; name: string }): Promise<void> {
  const pinned = await ctx.db
    .select({ orgId: managedDatabase.orgId, name: managedDatabase.name })
    .from(managedDatabase)
    .where(eq(managedDatabase.nodeId, node.id));
  if (pinned.length === 0) return;
  const ours = (d: { orgId: string }) => ctx.actor.orgIds.includes(d.orgId);
  const names = [...new Set(pinned.filter(ours).map((d) => d.name))].sort();
  const which = [...(names.length > 0 ? [names.join(", ")] : []), ...(pinned.some((d) => !ours(d)) ? ["databases of other organizations"] : [])].join(" and ");
  throw conflict(
    `draining ${node.name} stops the databases pinned to it (${which}): their data is on that node, so they stay stopped until it is activated again; send "stopDatabases": true to drain it anyway`,
    "stopDatabases",
  );
}
