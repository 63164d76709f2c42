import { and, asc, eq, gte, inArray } from "drizzle-orm";
import { z } from "zod";
import { deploySample } from "@levelrail/db/schema/fleet";
import { environment } from "@levelrail/db/schema/orgs";
import { service } from "@levelrail/db/schema/services";
import { resourceName } from "@levelrail/spec/rules";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, parse, scope, visibleProjects } from "../context";

/** The most deploy samples one answer carries (docs/api.md#paging-and-bounded-lists: no list is unbounded); more is a 400 naming `since`. */
export const MAX_DEPLOY_SAMPLES = 10_000;

const query = z
  .object({
    service: resourceName.optional(),
    /** One service by its id: a name may be in several environments. */
    serviceId: z.string().uuid("must be a service id").optional(),
    environmentId: z.string().uuid("must be an environment id").optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    /** "false": leave out the per-deploy samples (what a page that shows days and totals needs). */
    samples: z.enum(["true", "false"], { error: "must be true or false" }).optional(),
    /** Only the `top` services with the most deploys in `services` (the fleet's figures count every one; `servicesTotal` says how many). */
    top: z.coerce.number({ error: "must be a whole number from 1 to 1000" }).int("must be a whole number from 1 to 1000").min(1, "must be a whole number from 1 to 1000").max(1000, "must be a whole number from 1 to 1000").optional(),
  })
  .strict();

export interface DayBucket {
  day: string;
  deploys: number;
  failed: number;
  meanDurationMs: number | null;
}

function bucket(samples: { at: Date; outcome: string; durationMs: number }[]): DayBucket[] {
  const days = new Map<string, { deploys: number; failed: number; total: number; ok: number }>();
  for (const s of samples) {
    const day = s.at.toISOString().slice(0, 10);
    const d = days.get(day) ?? { deploys: 0, failed: 0, total: 0, ok: 0 };
    if (s.outcome === "succeeded") {
      d.deploys++;
      d.total += s.durationMs;
      d.ok++;
    } else d.failed++;
    days.set(day, d);
  }
  return [...days.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, d]) => ({ day, deploys: d.deploys, failed: d.failed, meanDurationMs: d.ok ? Math.round(d.total / d.ok) : null }));
}

/**
 * Deploy frequency: one sample per real cutover (or failed attempt), per day per service and for the
 * fleet; `environmentId` narrows to one environment, `service` to the services of that name,
 * `serviceId` to one service. A service
 * is told apart by its id (`web` of staging is not `web` of production).
 */
export async function deployMetrics({ ctx, input }: { ctx: Ctx; input: unknown }) {
  const q = parse(query, input);
  // The default starts on a whole minute, so two polls a moment apart answer the same body (and the
  // same ETag), and the same as for an environment that is not the caller's (docs/api.md#errors).
  const since = q.since ? new Date(q.since) : new Date(Math.floor((Date.now() - 30 * 24 * 3600 * 1000) / 60_000) * 60_000);
  const rows = await ctx.db
    .select({
      service: service.name,
      serviceId: service.id,
      environmentId: service.environmentId,
      environment: environment.name,
      releaseId: deploySample.releaseId,
      outcome: deploySample.outcome,
      durationMs: deploySample.durationMs,
      at: deploySample.at,
    })
    .from(deploySample)
    .innerJoin(service, eq(service.id, deploySample.serviceId))
    .innerJoin(environment, eq(environment.id, service.environmentId))
    .where(
      and(
        inArray(deploySample.orgId, scope(ctx)),
        visibleProjects(ctx, environment.orgId, environment.projectId),
        gte(deploySample.at, since),
        q.service ? eq(service.name, q.service) : undefined,
        q.serviceId ? eq(service.id, q.serviceId) : undefined,
        q.environmentId ? eq(service.environmentId, q.environmentId) : undefined,
      ),
    )
    .orderBy(asc(deploySample.at))
    .limit(MAX_DEPLOY_SAMPLES + 1);
  if (rows.length > MAX_DEPLOY_SAMPLES) {
    throw new LevelrailError("invalid_input", `since: more than ${MAX_DEPLOY_SAMPLES} deploys since ${since.toISOString()}; ask for a later since, one environmentId or one service`, {
      field: "since",
    });
  }
  const byService = new Map<string, typeof rows>();
  for (const r of rows) {
    const list = byService.get(r.serviceId);
    if (list) list.push(r);
    else byService.set(r.serviceId, [r]);
  }
  let services = [...byService.values()];
  // The most deployed first, then by name; without `top`, in the order of each service's first deploy.
  if (q.top !== undefined) services = services.sort((a, b) => b.length - a.length || a[0]!.service.localeCompare(b[0]!.service) || a[0]!.environment.localeCompare(b[0]!.environment)).slice(0, q.top);
  return {
    since: since.toISOString(),
    ...(q.samples === "false" ? {} : { samples: rows.map((r) => ({ ...r, at: r.at.toISOString() })) }),
    fleet: bucket(rows),
    servicesTotal: byService.size,
    services: services.map((samples) => {
      const first = samples[0]!;
      return { service: first.service, serviceId: first.serviceId, environmentId: first.environmentId, environment: first.environment, days: bucket(samples) };
    }),
  };
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { query as deployMetricsQuery };
