import { inArray } from "drizzle-orm";
import { organization } from "@levelrail/db/schema/orgs";
import type { Ctx } from "../context";

export async function listOrgs({ ctx }: { ctx: Ctx }) {
  if (ctx.actor.orgIds.length === 0) return [];
  return ctx.db.select().from(organization).where(inArray(organization.id, ctx.actor.orgIds)).orderBy(organization.createdAt);
}
