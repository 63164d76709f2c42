import { and, inArray, isNotNull } from "drizzle-orm";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { nodeChange } from "@levelrail/db/schema/nodes";
import { LevelrailError } from "@levelrail/spec/errors";
import type { NodeChangeState, NodeChangeView } from "@levelrail/spec/nodes";
import type { Ctx } from "../context";
import { allows, requiredRole } from "../org/permissions";

/** What the engine says of the installation's nodes: one engine as its one node, or a swarm's node list. */
export interface EngineNodes<N extends { id: string }> {
  engine: "single" | "swarm";
  nodes: N[];
}

/** Where the node list comes from: the engine, read-only (`@levelrail/docker/nodes-read` in the web app). */
export interface NodesReader<N extends { id: string }> {
  nodes(): Promise<EngineNodes<N>>;
}

/** A managed database pinned to a node: its data is there. */
export interface NodeDatabase {
  name: string;
  environmentId: string;
}

/**
 * A node as the API shows it: the engine's view and the change last asked of it; in the list, the
 * caller's organizations' databases pinned to it (a drain of it stops them; never another
 * organization's: the nodes are shared, the databases are not).
 */
export type NodeWithChange<N> = N & { change: NodeChangeView | null; databases?: NodeDatabase[] };

/**
 * The installation's nodes are no organization's own: reading their names and state needs a role on
 * a whole organization (a role limited to one project does not count), or being an installation
 * administrator. Else throws the 403 naming the role.
 */
export function nodeReadAuthority(ctx: Pick<Ctx, "actor">): void {
  const { orgIds, memberships, installationAdmin } = ctx.actor;
  if (installationAdmin === true) return;
  const m = memberships.find((x) => orgIds.includes(x.orgId) && x.projectId === null && allows(x.role, "node.read"));
  if (!m) throw new LevelrailError("forbidden", `listing the installation's nodes needs the ${requiredRole("node.read")} role in an organization`);
}

type Row = typeof nodeChange.$inferSelect;

export function changeState(r: Pick<Row, "error" | "generation" | "appliedGeneration">): NodeChangeState {
  if (r.error !== null) return "failed";
  return r.appliedGeneration < r.generation ? "pending" : "applied";
}

export function changeView(r: Row): NodeChangeView {
  return {
    availability: r.availability,
    labels: r.labels ?? null,
    state: changeState(r),
    error: r.error,
    requestedAt: r.requestedAt.toISOString(),
    requestedBy: r.requestedBy,
  };
}

/**
 * `GET /api/v1/nodes` (docs/operating/nodes-and-swarm.md): the installation's nodes, one engine answering itself as its
 * one node, a swarm its node list, each with the change an operator last asked of it (null when
 * none). Needs `node.read` (viewer) on a whole organization, or an installation administrator.
 */
export async function listNodes<N extends { id: string }>({ ctx, reader }: { ctx: Pick<Ctx, "actor" | "db">; reader: NodesReader<N> }): Promise<EngineNodes<NodeWithChange<N>>> {
  nodeReadAuthority(ctx);
  const view = await reader.nodes();
  // One engine has no node to change: no request can exist for it.
  const rows = view.engine === "swarm" ? await ctx.db.select().from(nodeChange) : [];
  const byId = new Map(rows.map((r) => [r.nodeId, changeView(r)]));
  const pinned = view.engine === "swarm" && ctx.actor.orgIds.length > 0 ? await pinnedDatabases(ctx, view.nodes.map((n) => n.id)) : new Map<string, NodeDatabase[]>();
  return { engine: view.engine, nodes: view.nodes.map((n) => ({ ...n, change: byId.get(n.id) ?? null, databases: pinned.get(n.id) ?? [] })) };
}

/** The caller's organizations' databases pinned to these nodes, by node, by name. */
async function pinnedDatabases(ctx: Pick<Ctx, "actor" | "db">, nodeIds: string[]): Promise<Map<string, NodeDatabase[]>> {
  if (nodeIds.length === 0) return new Map();
  const found = await ctx.db
    .select({ nodeId: managedDatabase.nodeId, name: managedDatabase.name, environmentId: managedDatabase.environmentId })
    .from(managedDatabase)
    .where(and(isNotNull(managedDatabase.nodeId), inArray(managedDatabase.nodeId, nodeIds), inArray(managedDatabase.orgId, ctx.actor.orgIds)));
  const out = new Map<string, NodeDatabase[]>();
  for (const d of found.sort((a, b) => a.name.localeCompare(b.name))) out.set(d.nodeId!, [...(out.get(d.nodeId!) ?? []), { name: d.name, environmentId: d.environmentId }]);
  return out;
}
