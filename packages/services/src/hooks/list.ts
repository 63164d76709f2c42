import { and, desc, eq, inArray, lt } from "drizzle-orm";
import { z } from "zod";
import { hookRun } from "@levelrail/db/schema/hooks";
import { service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { resourceName } from "@levelrail/spec/rules";
import { findApp } from "../app/app";
import { environment } from "@levelrail/db/schema/orgs";
import { type Ctx, isUuid, parse, scope, visibleProjects } from "../context";
import { authorize } from "../org/permissions";

const query = z
  .object({
    service: resourceName.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** Cursor: the `startedAt` of the last run of the previous page (ISO time). */
    before: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

type Row = typeof hookRun.$inferSelect;

/** A hook run without its output (lists stay small); `getHookRun` returns the output. */
const summary = (r: Row, serviceName: string) => ({
  id: r.id,
  service: serviceName,
  releaseId: r.releaseId,
  phase: r.phase,
  command: r.command,
  startedAt: r.startedAt.toISOString(),
  finishedAt: r.finishedAt?.toISOString() ?? null,
  durationMs: r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
  exitCode: r.exitCode,
  outcome: r.outcome,
  message: r.message,
});
export type HookRunSummary = ReturnType<typeof summary>;

/** Every hook run of an app's services, newest first; `?service=` filters, `?before=` pages. */
export async function listHookRuns({ ctx, envId, app, input }: { ctx: Ctx; envId: string; app: string; input: unknown }) {
  const a = await findApp(ctx, envId, app, "log.read");
  const q = parse(query, input);
  const rows = await ctx.db
    .select({ run: hookRun, name: service.name })
    .from(hookRun)
    .innerJoin(service, eq(service.id, hookRun.serviceId))
    .where(
      and(
        eq(service.appId, a.id),
        eq(hookRun.orgId, a.orgId),
        q.service ? eq(service.name, q.service) : undefined,
        q.before ? lt(hookRun.startedAt, new Date(q.before)) : undefined,
      ),
    )
    .orderBy(desc(hookRun.startedAt))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit).map((r) => summary(r.run, r.name));
  const last = page[page.length - 1];
  return { runs: page, nextBefore: rows.length > q.limit && last ? last.startedAt : null };
}

/** One run with its full output (rendered as text by the UI, never as HTML). */
export async function getHookRun({ ctx, id }: { ctx: Ctx; id: string }) {
  if (!isUuid(id)) throw new LevelrailError("not_found", "hook run not found");
  const [row] = await ctx.db
    .select({ run: hookRun, name: service.name, environmentId: service.environmentId, projectId: environment.projectId })
    .from(hookRun)
    .innerJoin(service, eq(service.id, hookRun.serviceId))
    .innerJoin(environment, eq(environment.id, service.environmentId))
    .where(and(eq(hookRun.id, id), inArray(hookRun.orgId, scope(ctx)), visibleProjects(ctx, environment.orgId, environment.projectId)));
  if (!row) throw new LevelrailError("not_found", "hook run not found");
  authorize(ctx, "log.read", { orgId: row.run.orgId, projectId: row.projectId }, new LevelrailError("not_found", "hook run not found"));
  // The environment names the service (names repeat across environments): the page links to it.
  return { ...summary(row.run, row.name), environmentId: row.environmentId, output: row.run.output };
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { query as hookRunsQuery };
