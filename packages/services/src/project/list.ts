import { and, eq, inArray } from "drizzle-orm";
import { environment, project } from "@levelrail/db/schema/orgs";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, MAX_LIST_ROWS, bounded, isUuid, visibleProjects } from "../context";
import { type Action, authorize } from "../org/permissions";

/** A project as the API answers it. */
export interface ProjectView {
  id: string;
  orgId: string;
  name: string;
  createdAt: string;
}

/** An environment as the API answers it. */
export interface EnvironmentView {
  id: string;
  orgId: string;
  projectId: string;
  name: string;
  createdAt: string;
}

export const toProjectView = (p: typeof project.$inferSelect): ProjectView => ({
  id: p.id,
  orgId: p.orgId,
  name: p.name,
  createdAt: p.createdAt.toISOString(),
});

export const toEnvironmentView = (e: typeof environment.$inferSelect): EnvironmentView => ({
  id: e.id,
  orgId: e.orgId,
  projectId: e.projectId,
  name: e.name,
  createdAt: e.createdAt.toISOString(),
});

export async function listProjects({ ctx }: { ctx: Ctx }): Promise<ProjectView[]> {
  if (ctx.actor.orgIds.length === 0) return [];
  const rows = await ctx.db
    .select()
    .from(project)
    .where(and(inArray(project.orgId, ctx.actor.orgIds), visibleProjects(ctx, project.orgId, project.id)))
    .orderBy(project.createdAt)
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "projects", "split them over more organizations").map(toProjectView);
}

/**
 * A project the caller may see, as its row (for other verbs), or 404 (an id that is no UUID names no
 * project; another organization's, or another project than a project-limited member's, neither);
 * then 403 unless the caller's role may do `action` (`org/permissions.ts`).
 */
export async function getProject(ctx: Ctx, id: string, action: Action = "project.read") {
  if (!isUuid(id)) throw new LevelrailError("not_found", "project not found");
  const [row] = await ctx.db
    .select()
    .from(project)
    .where(and(eq(project.id, id), visibleProjects(ctx, project.orgId, project.id)));
  if (!row) throw new LevelrailError("not_found", "project not found");
  authorize(ctx, action, { orgId: row.orgId, projectId: row.id }, new LevelrailError("not_found", "project not found"));
  return row;
}

export async function listEnvironments({ ctx, projectId }: { ctx: Ctx; projectId: string }): Promise<EnvironmentView[]> {
  const p = await getProject(ctx, projectId, "environment.read");
  const rows = await ctx.db
    .select()
    .from(environment)
    .where(and(eq(environment.projectId, p.id), eq(environment.orgId, p.orgId)))
    .orderBy(environment.createdAt)
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "environments in this project", "delete the previews you no longer need").map(toEnvironmentView);
}

/**
 * An environment the caller may see, as its row (for every verb inside it), or 404. Another
 * organization's environment (or another project's, for a project-limited member) answers exactly
 * like one that does not exist. Then 403 unless the caller's role may do `action`: every verb inside
 * an environment names its action here, so none skips the check.
 */
export async function findEnvironment(ctx: Ctx, id: string, action: Action) {
  if (!isUuid(id)) throw new LevelrailError("not_found", "environment not found");
  const [row] = await ctx.db
    .select()
    .from(environment)
    .where(and(eq(environment.id, id), visibleProjects(ctx, environment.orgId, environment.projectId)));
  if (!row) throw new LevelrailError("not_found", "environment not found");
  authorize(ctx, action, { orgId: row.orgId, projectId: row.projectId }, new LevelrailError("not_found", "environment not found"));
  return row;
}

export async function getEnvironment({ ctx, envId }: { ctx: Ctx; envId: string }): Promise<EnvironmentView> {
  return toEnvironmentView(await findEnvironment(ctx, envId, "environment.read"));
}
