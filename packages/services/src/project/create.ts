import { z } from "zod";
import { project } from "@levelrail/db/schema/orgs";
import { type Ctx, orgOf, parse, uniquely } from "../context";
import { authorize } from "../org/permissions";
import { type ProjectView, toProjectView } from "./list";
import { audit } from "../audit/record";

const projectInput = z.object({ name: z.string().trim().min(1, "is required").max(100), orgId: z.string().uuid("must be an organization id").optional() }).strict();

export async function createProject({ ctx, input }: { ctx: Ctx; input: unknown }): Promise<ProjectView> {
  const { name, orgId } = parse(projectInput, input);
  const org = orgOf(ctx, orgId);
  authorize(ctx, "project.create", { orgId: org });
  return uniquely("name", `project ${name}`, async () => {
    return ctx.db.transaction(async (tx) => {
      const [row] = await tx.insert(project).values({ orgId: org, name }).returning();
      await audit(ctx, tx, { orgId: org, action: "project.create", target: { type: "project", id: row!.id, name }, fields: ["name"] });
      return toProjectView(row!);
    });
  });
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { projectInput as projectInput };
