import { and, eq, inArray } from "drizzle-orm";
import { envVar, type EnvScope } from "@levelrail/db/schema/config";
import { environment, organization, project } from "@levelrail/db/schema/orgs";
import { LevelrailError } from "@levelrail/spec/errors";
import { envDocument } from "@levelrail/spec/rules";
import { type Ctx, isUuid, parse, scope, visibleProjects } from "../context";
import { audit } from "../audit/record";
import { type Action, authorize } from "../org/permissions";

const ACTIONS: Record<EnvScope, { read: Action; write: Action }> = {
  organization: { read: "orgEnv.read", write: "orgEnv.write" },
  project: { read: "projectEnv.read", write: "projectEnv.write" },
  environment: { read: "environmentEnv.read", write: "environmentEnv.write" },
};

/**
 * The organization owning a tier's scope, if the caller may see it (a project-limited member: their
 * project and its environments, not the organization's tier); else 404. Then 403 unless their role
 * may do `access` to it.
 */
async function ownerOf(ctx: Ctx, tier: EnvScope, id: string, access: "read" | "write"): Promise<string> {
  const notFound = new LevelrailError("not_found", `${tier} not found`);
  if (!isUuid(id)) throw notFound;
  const table = tier === "organization" ? organization : tier === "project" ? project : environment;
  const orgCol = tier === "organization" ? organization.id : tier === "project" ? project.orgId : environment.orgId;
  const projectCol = tier === "organization" ? null : tier === "project" ? project.id : environment.projectId;
  const visible = projectCol === null ? undefined : visibleProjects(ctx, orgCol, projectCol);
  const [row] = await ctx.db.select({ orgId: orgCol, projectId: projectCol ?? orgCol }).from(table).where(and(eq(table.id, id), inArray(orgCol, scope(ctx)), visible));
  if (!row) throw notFound;
  authorize(ctx, ACTIONS[tier][access], { orgId: row.orgId, projectId: projectCol === null ? null : row.projectId }, notFound);
  return row.orgId;
}

export async function getTierEnv({ ctx, tier, id }: { ctx: Ctx; tier: EnvScope; id: string }) {
  const orgId = await ownerOf(ctx, tier, id, "read");
  const rows = await ctx.db
    .select({ key: envVar.key, value: envVar.value })
    .from(envVar)
    .where(and(eq(envVar.scope, tier), eq(envVar.scopeId, id), eq(envVar.orgId, orgId)))
    .orderBy(envVar.key);
  return { vars: Object.fromEntries(rows.map((r) => [r.key, r.value])) };
}

/** Replaces the tier's whole set atomically. */
export async function putTierEnv({ ctx, tier, id, input }: { ctx: Ctx; tier: EnvScope; id: string; input: unknown }) {
  const orgId = await ownerOf(ctx, tier, id, "write");
  const { vars } = parse(envDocument, input);
  await ctx.db.transaction(async (tx) => {
    await tx.delete(envVar).where(and(eq(envVar.scope, tier), eq(envVar.scopeId, id), eq(envVar.orgId, orgId)));
    const rows = Object.entries(vars).map(([key, value]) => ({ orgId, scope: tier, scopeId: id, key, value }));
    if (rows.length) await tx.insert(envVar).values(rows);
    // Key names only (the whole set replaced), like the drift view.
    await audit(ctx, tx, { orgId, action: "env.set", target: { type: tier, id }, fields: Object.keys(vars) });
  });
  return { vars };
}
