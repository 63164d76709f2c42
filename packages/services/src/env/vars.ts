import { and, eq, inArray } from "drizzle-orm";
import { envVar, type EnvScope } from "@levelrail/db/schema/config";
import { environment, organization, project } from "@levelrail/db/schema/orgs";
import { LevelrailError } from "@levelrail/spec/errors";
import { envDocument } from "@levelrail/spec/rules";
import { type Ctx, isUuid, parse, scope } from "../context";
import { audit } from "../audit/record";

/** The organization owning a tier's scope, if the caller may see it; else 404. */
async function ownerOf(ctx: Ctx, tier: EnvScope, id: string): Promise<string> {
  const notFound = new LevelrailError("not_found", `${tier} not found`);
  if (!isUuid(id)) throw notFound;
  const table = tier === "organization" ? organization : tier === "project" ? project : environment;
  const orgCol = tier === "organization" ? organization.id : tier === "project" ? project.orgId : environment.orgId;
  const [row] = await ctx.db.select({ orgId: orgCol }).from(table).where(and(eq(table.id, id), inArray(orgCol, scope(ctx))));
  if (!row) throw notFound;
  return row.orgId;
}

export async function getTierEnv({ ctx, tier, id }: { ctx: Ctx; tier: EnvScope; id: string }) {
  const orgId = await ownerOf(ctx, tier, id);
  const rows = await ctx.db
    .select({ key: envVar.key, value: envVar.value })
    .from(envVar)
    .where(and(eq(envVar.scope, tier), eq(envVar.scopeId, id), eq(envVar.orgId, orgId)))
    .orderBy(envVar.key);
  return { vars: Object.fromEntries(rows.map((r) => [r.key, r.value])) };
}

/** Replaces the tier's whole set atomically. */
export async function putTierEnv({ ctx, tier, id, input }: { ctx: Ctx; tier: EnvScope; id: string; input: unknown }) {
  const orgId = await ownerOf(ctx, tier, id);
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
