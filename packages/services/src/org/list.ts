import { inArray } from "drizzle-orm";
import { organization } from "@levelrail/db/schema/orgs";
import type { Role } from "@levelrail/spec/roles";
import { type Ctx, MAX_LIST_ROWS, bounded } from "../context";
import { type Action, PERMISSIONS, allows, membershipIn } from "./permissions";

/** An organization as the API answers it. */
export interface OrgView {
  id: string;
  name: string;
  createdAt: string;
}

/** An organization in the caller's list: with their role in it, the one project it holds on (or null: all of it), and what it allows. */
export interface MyOrgView extends OrgView {
  role: Role;
  projectId: string | null;
  /** Every action of the permission table the caller's role allows here (the UI hides or disables the rest). */
  can: Action[];
}

export const toOrgView = (o: typeof organization.$inferSelect): OrgView => ({ id: o.id, name: o.name, createdAt: o.createdAt.toISOString() });

/** The UI's view of the caller in one organization (it hides what the role may not do, and says why). */
export function myOrgView(ctx: Ctx, o: typeof organization.$inferSelect): MyOrgView {
  const m = membershipIn(ctx, o.id);
  const role = m?.role ?? "viewer";
  return { ...toOrgView(o), role, projectId: m?.projectId ?? null, can: (Object.keys(PERMISSIONS) as Action[]).filter((a) => allows(role, a)) };
}

export async function listOrgs({ ctx }: { ctx: Ctx }): Promise<MyOrgView[]> {
  if (ctx.actor.orgIds.length === 0) return [];
  const rows = await ctx.db
    .select()
    .from(organization)
    .where(inArray(organization.id, ctx.actor.orgIds))
    .orderBy(organization.createdAt)
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "organizations", "leave the ones you no longer need").map((o) => myOrgView(ctx, o));
}
