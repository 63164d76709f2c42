import { z } from "zod";
import type { Db } from "@levelrail/db/client";
import { environment, membership, organization, project } from "@levelrail/db/schema/orgs";
import { type Ctx, parse } from "../context";
import { type OrgView, toOrgView } from "./list";

const input = z.object({ name: z.string().trim().min(1, "is required").max(100) }).strict();

/** An organization with a default project and environment, owned by `userId` (rows: for the CLI and test seeding). */
export async function bootstrapOrg(db: Db, userId: string, name: string) {
  return db.transaction(async (tx) => {
    const [org] = await tx.insert(organization).values({ name }).returning();
    if (!org) throw new Error("insert returned nothing");
    await tx.insert(membership).values({ orgId: org.id, userId, role: "owner" });
    const [proj] = await tx.insert(project).values({ orgId: org.id, name: "default" }).returning();
    if (!proj) throw new Error("insert returned nothing");
    const [env] = await tx.insert(environment).values({ orgId: org.id, projectId: proj.id, name: "production" }).returning();
    return { org, project: proj, environment: env };
  });
}

export async function createOrg({ ctx, input: raw }: { ctx: Ctx; input: unknown }): Promise<OrgView> {
  const { name } = parse(input, raw);
  const { org } = await bootstrapOrg(ctx.db, ctx.actor.userId, name);
  ctx.actor.orgIds.push(org.id);
  return toOrgView(org);
}
