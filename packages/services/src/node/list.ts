import { LevelrailError } from "@levelrail/spec/errors";
import type { Ctx } from "../context";
import { allows, requiredRole } from "../org/permissions";

/** Where the node list comes from: the engine, read-only (`@levelrail/docker/nodes-read` in the web app). */
export interface NodesReader<T> {
  nodes(): Promise<T>;
}

/**
 * `GET /api/v1/nodes` (CONTRACT §12): the installation's nodes, one engine answering itself as its
 * one node, a swarm its node list. The nodes are the installation's, not an organization's: the
 * caller must hold `node.read` (admin) on a whole organization (a role limited to one project does
 * not count); anyone else gets the 403 naming the role.
 */
export async function listNodes<T>({ ctx, reader }: { ctx: Pick<Ctx, "actor">; reader: NodesReader<T> }): Promise<T> {
  const { orgIds, memberships } = ctx.actor;
  const may = memberships.some((m) => orgIds.includes(m.orgId) && m.projectId === null && allows(m.role, "node.read"));
  if (!may) throw new LevelrailError("forbidden", `listing the installation's nodes needs the ${requiredRole("node.read")} role in an organization`);
  return reader.nodes();
}
