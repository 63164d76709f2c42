import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { operatorPreference } from "@levelrail/db/schema/operator";
import { environment } from "@levelrail/db/schema/orgs";
import { type Ctx, isUuid, parse, scope, visibleProjects } from "../context";
import { type EnvironmentView, type ProjectView, findEnvironment, listEnvironments, listProjects, toEnvironmentView } from "../project/list";
import { audit } from "../audit/record";
import { refuseReadOnly } from "../org/permissions";

/** The environment the panel shows the operator, with its project. */
export interface CurrentEnvironment {
  project: ProjectView;
  environment: EnvironmentView;
  /** Whether the operator chose it (false: the fallback, the first project's production). */
  chosen: boolean;
}

const chooseInput = z.object({ environmentId: z.string().refine(isUuid, "must be an environment id") }).strict();

/**
 * The operator's current environment: the one they last chose, while it is still one of theirs;
 * otherwise the first project's `production` (or its first environment). Null when they have no
 * project with an environment.
 */
export async function getCurrentEnvironment({ ctx }: { ctx: Ctx }): Promise<CurrentEnvironment | null> {
  const projects = await listProjects({ ctx });
  const [remembered] = await ctx.db
    .select({ environment })
    .from(operatorPreference)
    .innerJoin(environment, eq(environment.id, operatorPreference.environmentId))
    .where(and(eq(operatorPreference.userId, ctx.actor.userId), inArray(environment.orgId, scope(ctx)), visibleProjects(ctx, environment.orgId, environment.projectId)));
  const project = remembered && projects.find((p) => p.id === remembered.environment.projectId);
  if (remembered && project) return { project, environment: toEnvironmentView(remembered.environment), chosen: true };
  for (const p of projects) {
    const environments = await listEnvironments({ ctx, projectId: p.id });
    const fallback = environments.find((e) => e.name === "production") ?? environments[0];
    if (fallback) return { project: p, environment: fallback, chosen: false };
  }
  return null;
}

/** Remembers `{environmentId}` as the operator's current environment; another organization's is a 404. */
export async function setCurrentEnvironment({ ctx, input }: { ctx: Ctx; input: unknown }): Promise<CurrentEnvironment> {
  refuseReadOnly(ctx.actor, "choosing the current environment");
  const { environmentId } = parse(chooseInput, input);
  const env = await findEnvironment(ctx, environmentId, "environment.read");
  const now = new Date();
  await ctx.db.transaction(async (tx) => {
    await tx
      .insert(operatorPreference)
      .values({ userId: ctx.actor.userId, environmentId: env.id, updatedAt: now })
      .onConflictDoUpdate({ target: operatorPreference.userId, set: { environmentId: env.id, updatedAt: now } });
    await audit(ctx, tx, { orgId: env.orgId, action: "preference.environment.set", target: { type: "environment", id: env.id, name: env.name }, fields: ["environmentId"] });
  });
  const current = await getCurrentEnvironment({ ctx });
  if (!current) throw new Error("the environment just chosen is not the current one");
  return current;
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { chooseInput as chooseEnvironmentInput };
