import { and, asc, count, eq, inArray } from "drizzle-orm";
import { notifyDesired } from "@levelrail/db/notify";
import { app, service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { NETWORKS_KEY } from "@levelrail/spec/keys";
import { appInput } from "@levelrail/spec/env-spec";
import { type Ctx, MAX_LIST_ROWS, bounded, parse, scope, uniquely } from "../context";
import { assertQuota } from "../org/quota";
import type { Action } from "../org/permissions";
import { findEnvironment } from "../project/list";
import { audit } from "../audit/record";

type AppRow = typeof app.$inferSelect;

/** An app as the API answers it. */
export interface AppView {
  id: string;
  orgId: string;
  environmentId: string;
  name: string;
  createdAt: string;
}

/** An app in a list: with how many services it has. */
export interface AppListItem extends AppView {
  services: number;
}

export const toAppView = (a: Pick<AppRow, "id" | "orgId" | "environmentId" | "name" | "createdAt">): AppView => ({
  id: a.id,
  orgId: a.orgId,
  environmentId: a.environmentId,
  name: a.name,
  createdAt: a.createdAt.toISOString(),
});

/** The apps of one environment, by name. */
export async function listApps({ ctx, envId }: { ctx: Ctx; envId: string }): Promise<AppListItem[]> {
  const env = await findEnvironment(ctx, envId, "app.read");
  const rows = await ctx.db
    .select({ id: app.id, name: app.name, orgId: app.orgId, environmentId: app.environmentId, createdAt: app.createdAt, services: count(service.id) })
    .from(app)
    .leftJoin(service, eq(service.appId, app.id))
    .where(and(eq(app.environmentId, env.id), eq(app.orgId, env.orgId)))
    .groupBy(app.id)
    .orderBy(asc(app.name))
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "apps in this environment", "split them over more environments").map((r) => ({ ...toAppView(r), services: r.services }));
}

/** An app of an environment of the caller's organizations by name, as its row (for other verbs), or 404. */
export async function findApp(ctx: Ctx, envId: string, name: string, action: Action): Promise<AppRow> {
  const env = await findEnvironment(ctx, envId, action);
  const [row] = await ctx.db
    .select()
    .from(app)
    .where(and(eq(app.environmentId, env.id), eq(app.name, name), inArray(app.orgId, scope(ctx))));
  if (!row) throw new LevelrailError("not_found", `app ${name} not found`);
  return row;
}

export async function getApp({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<AppView> {
  return toAppView(await findApp(ctx, envId, name, "app.read"));
}

export async function createApp({ ctx, envId, input }: { ctx: Ctx; envId: string; input: unknown }): Promise<AppView> {
  const env = await findEnvironment(ctx, envId, "app.write");
  const { name } = parse(appInput, input);
  return uniquely("name", `app ${name}`, () =>
    ctx.db.transaction(async (tx) => {
      await assertQuota(ctx, tx, env.orgId, { apps: 1 });
      const [row] = await tx.insert(app).values({ orgId: env.orgId, environmentId: env.id, name }).returning();
      await audit(ctx, tx, { orgId: env.orgId, action: "app.create", target: { type: "app", id: row!.id, name }, fields: ["name"] });
      return toAppView(row!);
    }),
  );
}

/** Deletes an app that has no services left; its network goes on the next cleanup pass. */
export async function deleteApp({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }) {
  const a = await findApp(ctx, envId, name, "app.write");
  await ctx.db.transaction(async (tx) => {
    const [n] = await tx.select({ n: count() }).from(service).where(eq(service.appId, a.id));
    if ((n?.n ?? 0) > 0) throw new LevelrailError("conflict", `app ${name} still has ${n?.n} service(s); delete them first`);
    await tx.delete(app).where(and(eq(app.id, a.id), eq(app.orgId, a.orgId)));
    await audit(ctx, tx, { orgId: a.orgId, action: "app.delete", target: { type: "app", id: a.id, name: a.name } });
    await notifyDesired(tx, NETWORKS_KEY);
  });
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { appInput };
