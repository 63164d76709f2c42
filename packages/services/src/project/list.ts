import { and, eq, inArray } from "drizzle-orm";
import { environment, project } from "@levelrail/db/schema/orgs";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, isUuid, scope } from "../context";

export async function listProjects({ ctx }: { ctx: Ctx }) {
  if (ctx.actor.orgIds.length === 0) return [];
  return ctx.db.select().from(project).where(inArray(project.orgId, ctx.actor.orgIds)).orderBy(project.createdAt);
}

/** A project of the caller's organizations, or 404 (an id that is no UUID names no project). */
export async function getProject(ctx: Ctx, id: string) {
  if (!isUuid(id)) throw new LevelrailError("not_found", "project not found");
  const [row] = await ctx.db
    .select()
    .from(project)
    .where(and(eq(project.id, id), inArray(project.orgId, scope(ctx))));
  if (!row) throw new LevelrailError("not_found", "project not found");
  return row;
}

export async function listEnvironments({ ctx, projectId }: { ctx: Ctx; projectId: string }) {
  const p = await getProject(ctx, projectId);
  return ctx.db.select().from(environment).where(and(eq(environment.projectId, p.id), eq(environment.orgId, p.orgId))).orderBy(environment.createdAt);
}
