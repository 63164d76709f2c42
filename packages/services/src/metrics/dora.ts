import { and, asc, eq, gte, inArray, lte } from "drizzle-orm";
import { z } from "zod";
import { serviceEvent } from "@levelrail/db/schema/observability";
import { environment } from "@levelrail/db/schema/orgs";
import { release, service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { resourceName } from "@levelrail/spec/rules";
import { type Ctx, parse, scope, visibleProjects } from "../context";
import { type DoraEvent, type DoraFigures, type DoraRelease, type DoraSamples, doraFigures, serviceSamples } from "./dora-figures";

export const DORA_WINDOWS = { "7d": 7, "30d": 30, "90d": 90 } as const;
export type DoraWindow = keyof typeof DORA_WINDOWS;

/** The most releases one answer reads (docs/api.md#paging-and-bounded-lists: nothing unbounded); more is a 400 naming `window`. */
export const MAX_DORA_RELEASES = 20_000;

const query = z
  .object({
    service: resourceName.optional(),
    /** One service by its id: a name may be in several environments. */
    serviceId: z.string().uuid("must be a service id").optional(),
    environmentId: z.string().uuid("must be an environment id").optional(),
    window: z.enum(Object.keys(DORA_WINDOWS) as [DoraWindow, ...DoraWindow[]], { error: "must be 7d, 30d or 90d" }).default("30d"),
    /** Where the window ends (default: now). */
    until: z.iso.datetime({ offset: true }).optional(),
    /** Only the `top` services with the most releases in `services`, most first (the fleet's and environments' figures count every one; `servicesTotal` says how many). */
    top: z.coerce.number({ error: "must be a whole number from 1 to 1000" }).int("must be a whole number from 1 to 1000").min(1, "must be a whole number from 1 to 1000").max(1000, "must be a whole number from 1 to 1000").optional(),
  })
  .strict();

export interface DoraServiceRow {
  serviceId: string;
  service: string;
  environmentId: string;
  environment: string;
  figures: DoraFigures;
}

export interface DoraEnvironmentRow {
  environmentId: string;
  environment: string;
  figures: DoraFigures;
}

export interface DoraView {
  window: DoraWindow;
  since: string;
  until: string;
  fleet: DoraFigures;
  environments: DoraEnvironmentRow[];
  /** How many services had releases or crash loops in the window (`services` holds `top` of them when asked). */
  servicesTotal: number;
  services: DoraServiceRow[];
}

/**
 * The four DORA figures over a window (7, 30 or 90 days up to `until`, default now) for the fleet, each environment
 * and each service with releases or crash loops in it; `environmentId` and `service` narrow what is
 * read. Reads only releases that reached an outcome in the window and the crash-loop events, both
 * scoped to the caller's organizations; an environment that is not the caller's reads nothing.
 */
export async function doraMetrics({ ctx, input, now = new Date() }: { ctx: Ctx; input: unknown; now?: Date }): Promise<DoraView> {
  const q = parse(query, input);
  const days = DORA_WINDOWS[q.window];
  // By default the end of the current minute: two polls a moment apart answer the same body (and
  // ETag), and a release that went live a second ago is already in it.
  const until = q.until ? new Date(q.until) : new Date(Math.ceil(now.getTime() / 60_000) * 60_000);
  const since = new Date(until.getTime() - days * 24 * 3600 * 1000);
  const narrow = and(
    visibleProjects(ctx, environment.orgId, environment.projectId),
    q.service ? eq(service.name, q.service) : undefined,
    q.serviceId ? eq(service.id, q.serviceId) : undefined,
    q.environmentId ? eq(service.environmentId, q.environmentId) : undefined,
  );
  const who = { serviceId: service.id, service: service.name, environmentId: service.environmentId, environment: environment.name };

  const [releases, events] = await Promise.all([
    ctx.db
      .select({
        ...who,
        id: release.id,
        kind: release.kind,
        outcome: release.outcome,
        createdAt: release.createdAt,
        finishedAt: release.finishedAt,
        imageCreatedAt: release.imageCreatedAt,
      })
      .from(release)
      .innerJoin(service, eq(service.id, release.serviceId))
      .innerJoin(environment, eq(environment.id, service.environmentId))
      .where(
        and(
          inArray(release.orgId, scope(ctx)),
          inArray(release.outcome, ["succeeded", "failed"]),
          gte(release.finishedAt, since),
          lte(release.finishedAt, until),
          narrow,
        ),
      )
      .orderBy(asc(release.finishedAt))
      .limit(MAX_DORA_RELEASES + 1),
    ctx.db
      .select({ ...who, kind: serviceEvent.kind, at: serviceEvent.at })
      .from(serviceEvent)
      .innerJoin(service, eq(service.id, serviceEvent.serviceId))
      .innerJoin(environment, eq(environment.id, service.environmentId))
      .where(and(inArray(serviceEvent.orgId, scope(ctx)), gte(serviceEvent.at, since), lte(serviceEvent.at, until), narrow))
      .orderBy(asc(serviceEvent.at))
      .limit(MAX_DORA_RELEASES + 1),
  ]);
  if (releases.length > MAX_DORA_RELEASES || events.length > MAX_DORA_RELEASES) {
    throw new LevelrailError("invalid_input", `window: more than ${MAX_DORA_RELEASES} releases in ${q.window}; ask for a shorter window, one environmentId or one service`, {
      field: "window",
    });
  }

  type Who = Omit<DoraServiceRow, "figures">;
  const byService = new Map<string, { who: Who; releases: DoraRelease[]; events: DoraEvent[] }>();
  const entry = (w: Who) => {
    const e = byService.get(w.serviceId) ?? { who: { serviceId: w.serviceId, service: w.service, environmentId: w.environmentId, environment: w.environment }, releases: [], events: [] };
    byService.set(w.serviceId, e);
    return e;
  };
  for (const r of releases) {
    if (r.finishedAt === null || (r.outcome !== "succeeded" && r.outcome !== "failed")) continue;
    entry(r).releases.push({ id: r.id, kind: r.kind, outcome: r.outcome, createdAt: r.createdAt, finishedAt: r.finishedAt, imageCreatedAt: r.imageCreatedAt });
  }
  for (const e of events) entry(e).events.push({ kind: e.kind, at: e.at });

  const sampled = [...byService.values()].map((s) => ({ who: s.who, samples: serviceSamples(s.releases, s.events) }));
  const byEnvironment = new Map<string, { environmentId: string; environment: string; samples: DoraSamples[] }>();
  for (const s of sampled) {
    const e = byEnvironment.get(s.who.environmentId) ?? { environmentId: s.who.environmentId, environment: s.who.environment, samples: [] };
    e.samples.push(s.samples);
    byEnvironment.set(s.who.environmentId, e);
  }
  const byName = <T extends { environment: string }>(key: (t: T) => string) => (a: T, b: T) => a.environment.localeCompare(b.environment) || key(a).localeCompare(key(b));
  return {
    window: q.window,
    since: since.toISOString(),
    until: until.toISOString(),
    fleet: doraFigures(
      sampled.map((s) => s.samples),
      days,
    ),
    environments: [...byEnvironment.values()]
      .map((e) => ({ environmentId: e.environmentId, environment: e.environment, figures: doraFigures(e.samples, days) }))
      .sort(byName((e) => e.environmentId)),
    servicesTotal: sampled.length,
    services: topServices(
      sampled.map((s) => ({ ...s.who, figures: doraFigures([s.samples], days) })).sort(byName((s) => `${s.service}/${s.serviceId}`)),
      q.top,
    ),
  };
}

/** The `top` services with the most releases (ties in the given order), or all of them. */
function topServices(rows: DoraServiceRow[], top: number | undefined): DoraServiceRow[] {
  if (top === undefined) return rows;
  return rows
    .map((row, i) => ({ row, i }))
    .sort((a, b) => b.row.figures.releases - a.row.figures.releases || a.i - b.i)
    .slice(0, top)
    .map((x) => x.row);
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { query as doraQuery };
