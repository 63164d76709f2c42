import { z } from "zod";
import { project } from "@levelrail/db/schema/orgs";
import { type Ctx, orgOf, parse, uniquely } from "../context";
import { authorize } from "../org/permissions";
import { type ProjectView, toProjectView } from "./list";

const projectInput = z.object({ name: z.string().trim().min(1, "is required").max(100), orgId: z.string().uuid("must be an organization id").optional() }).strict();

export async function createProject({ ctx, input }: { ctx: Ctx; input: unknown }): Promise<ProjectView> {
  const { name, orgId } = parse(projectInput, input);
  const org = orgOf(ctx, orgId);
  authorize(ctx, "project.create", { orgId: org });
  return uniquely("name", `project ${name}`, async () => {
    const [row] = await ctx.db.insert(project).values({ orgId: org, name }).returning();
    return toProjectView(row!);
  });
}
