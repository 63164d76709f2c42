import { inArray } from "drizzle-orm";
import { organization } from "@levelrail/db/schema/orgs";
import { type Ctx, MAX_LIST_ROWS, bounded } from "../context";

/** An organization as the API answers it. */
export interface OrgView {
  id: string;
  name: string;
  createdAt: string;
}

export const toOrgView = (o: typeof organization.$inferSelect): OrgView => ({ id: o.id, name: o.name, createdAt: o.createdAt.toISOString() });

export async function listOrgs({ ctx }: { ctx: Ctx }): Promise<OrgView[]> {
  if (ctx.actor.orgIds.length === 0) return [];
  const rows = await ctx.db
    .select()
    .from(organization)
    .where(inArray(organization.id, ctx.actor.orgIds))
    .orderBy(organization.createdAt)
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "organizations", "leave the ones you no longer need").map(toOrgView);
}
