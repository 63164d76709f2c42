import { z } from "zod";
import { environment, project } from "@levelrail/db/schema/orgs";
import { type Ctx, orgOf, parse, uniquely } from "../context";
import { type EnvironmentView, type ProjectView, getProject, toEnvironmentView, toProjectView } from "./list";

const projectInput = z.object({ name: z.string().trim().min(1, "is required").max(100), orgId: z.string().uuid("must be an organization id").optional() }).strict();
const environmentInput = z.object({ name: z.string().trim().min(1, "is required").max(100) }).strict();

export async function createProject({ ctx, input }: { ctx: Ctx; input: unknown }): Promise<ProjectView> {
  const { name, orgId } = parse(projectInput, input);
  const org = orgOf(ctx, orgId);
  return uniquely("name", `project ${name}`, async () => {
    const [row] = await ctx.db.insert(project).values({ orgId: org, name }).returning();
    return toProjectView(row!);
  });
}

export async function createEnvironment({ ctx, projectId, input }: { ctx: Ctx; projectId: string; input: unknown }): Promise<EnvironmentView> {
  const p = await getProject(ctx, projectId);
  const { name } = parse(environmentInput, input);
  return uniquely("name", `environment ${name}`, async () => {
    const [row] = await ctx.db.insert(environment).values({ orgId: p.orgId, projectId: p.id, name }).returning();
    return toEnvironmentView(row!);
  });
}
