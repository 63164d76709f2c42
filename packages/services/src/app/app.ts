import { and, asc, count, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { notifyDesired } from "@levelrail/db/notify";
import { app, service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { NETWORKS_KEY } from "@levelrail/spec/keys";
import { resourceName } from "@levelrail/spec/rules";
import { type Ctx, orgOf, parse, scope, uniquely } from "../context";

const createInput = z.object({ name: resourceName, orgId: z.string().uuid("must be an organization id").optional() }).strict();

type AppRow = typeof app.$inferSelect;

/** An app as the API answers it. */
export interface AppView {
  id: string;
  orgId: string;
  name: string;
  createdAt: string;
}

/** An app in a list: with how many services it has. */
export interface AppListItem extends AppView {
  services: number;
}

export const toAppView = (a: Pick<AppRow, "id" | "orgId" | "name" | "createdAt">): AppView => ({
  id: a.id,
  orgId: a.orgId,
  name: a.name,
  createdAt: a.createdAt.toISOString(),
});

export async function listApps({ ctx }: { ctx: Ctx }): Promise<AppListItem[]> {
  const rows = await ctx.db
    .select({ id: app.id, name: app.name, orgId: app.orgId, createdAt: app.createdAt, services: count(service.id) })
    .from(app)
    .leftJoin(service, eq(service.appId, app.id))
    .where(inArray(app.orgId, scope(ctx)))
    .groupBy(app.id)
    .orderBy(asc(app.name));
  return rows.map((r) => ({ ...toAppView(r), services: r.services }));
}

/** An app of the caller's organizations by name, as its row (for other verbs), or 404. */
export async function findApp(ctx: Ctx, name: string): Promise<AppRow> {
  const rows = await ctx.db.select().from(app).where(and(eq(app.name, name), inArray(app.orgId, scope(ctx))));
  if (rows.length === 0) throw new LevelrailError("not_found", `app ${name} not found`);
  if (rows.length > 1) throw new LevelrailError("conflict", `app ${name} exists in several of your organizations`, { field: "app" });
  return rows[0]!;
}

export async function getApp({ ctx, name }: { ctx: Ctx; name: string }): Promise<AppView> {
  return toAppView(await findApp(ctx, name));
}

export async function createApp({ ctx, input }: { ctx: Ctx; input: unknown }): Promise<AppView> {
  const { name, orgId } = parse(createInput, input);
  const org = orgOf(ctx, orgId);
  return uniquely("name", `app ${name}`, async () => {
    const [row] = await ctx.db.insert(app).values({ orgId: org, name }).returning();
    return toAppView(row!);
  });
}

/** Deletes an app that has no services left; its network goes on the next cleanup pass. */
export async function deleteApp({ ctx, name }: { ctx: Ctx; name: string }) {
  const a = await findApp(ctx, name);
  await ctx.db.transaction(async (tx) => {
    const [n] = await tx.select({ n: count() }).from(service).where(eq(service.appId, a.id));
    if ((n?.n ?? 0) > 0) throw new LevelrailError("conflict", `app ${name} still has ${n?.n} service(s); delete them first`);
    await tx.delete(app).where(and(eq(app.id, a.id), eq(app.orgId, a.orgId)));
    await notifyDesired(tx, NETWORKS_KEY);
  });
}
