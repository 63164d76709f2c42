import { and, count, desc, eq, ilike, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { ingressStatus } from "@levelrail/db/schema/fleet";
import { serviceEvent } from "@levelrail/db/schema/observability";
import { gitSource } from "@levelrail/db/schema/git";
import { environment, project } from "@levelrail/db/schema/orgs";
import { app, release, service, serviceStatus } from "@levelrail/db/schema/services";
import type { DomainStatusMap } from "@levelrail/spec/domains";
import { LevelrailError } from "@levelrail/spec/errors";
import { resourceName } from "@levelrail/spec/rules";
import { lastLinesOf } from "@levelrail/spec/service-event";
import { DEFAULT_REPLICAS, PHASES, type ReleaseSpec, type ReleaseView, type ServiceView, type StatusView, isDefaultResources, resourcesOf } from "@levelrail/spec/service";
import { type Ctx, MAX_LIST_ROWS, bounded, isUuid, parse, scope, visibleProjects } from "../context";
import { domainStatusOf } from "../domain/status";
import { type GitSourceRow, sourceView } from "../git/source";
import type { Action } from "../org/permissions";
import { findEnvironment } from "../project/list";

type ServiceRow = typeof service.$inferSelect;
type ReleaseRow = typeof release.$inferSelect;

/** `git`: the service's git source, if it has one; `secret`: its webhook secret, only in the answer that made it. */
export function serviceView(s: ServiceRow, appName: string, git: GitSourceRow | null, secret?: string): ServiceView {
  return {
    id: s.id,
    name: s.name,
    app: appName,
    environmentId: s.environmentId,
    image: s.image,
    source: sourceView(s, git, secret),
    port: s.port,
    healthPath: s.healthPath,
    readyBudgetSeconds: s.readyBudgetSeconds,
    strategy: s.strategy,
    env: s.env,
    databaseEnv: s.databaseEnv,
    storageTargetId: s.storageTargetId,
    registryCredentialId: s.registryCredentialId,
    hooks: s.hooks,
    domains: s.domains,
    resources: resourcesOf(s.resources),
    replicas: s.replicas,
    placement: s.placement,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** What a Deploy of the service would run now: its draft snapshot. */
export function releaseSpecOf(s: ServiceRow): ReleaseSpec {
  return {
    image: s.image,
    port: s.port,
    healthPath: s.healthPath,
    readyBudgetSeconds: s.readyBudgetSeconds,
    strategy: s.strategy,
    env: s.env,
    hooks: s.hooks,
    // Left out when every default, so a release of an unchanged service fingerprints as before limits existed.
    ...(isDefaultResources(resourcesOf(s.resources)) ? {} : { resources: resourcesOf(s.resources) }),
    // Likewise the swarm's fields: a service of one replica anywhere fingerprints as before they existed.
    ...(s.replicas === DEFAULT_REPLICAS ? {} : { replicas: s.replicas }),
    ...(Object.keys(s.placement).length === 0 ? {} : { placement: s.placement }),
  };
}

export function releaseView(r: ReleaseRow): ReleaseView {
  const end = r.finishedAt;
  return {
    id: r.id,
    kind: r.kind,
    image: r.spec.image,
    imageId: r.imageId,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    finishedAt: end ? end.toISOString() : null,
    outcome: r.outcome,
    message: r.message,
    durationMs: end ? end.getTime() - (r.startedAt ?? r.createdAt).getTime() : null,
    promotedFrom: r.promotedFrom ?? null,
  };
}

/** A service of an environment of the caller's organizations, with its app, or 404. */
export async function findService(ctx: Ctx, envId: string, name: string, action: Action) {
  const env = await findEnvironment(ctx, envId, action);
  const [row] = await ctx.db
    .select({ service, appName: app.name, git: gitSource })
    .from(service)
    .innerJoin(app, eq(app.id, service.appId))
    .leftJoin(gitSource, eq(gitSource.serviceId, service.id))
    .where(and(eq(service.environmentId, env.id), eq(service.name, name), inArray(service.orgId, scope(ctx))));
  if (!row) throw new LevelrailError("not_found", `service ${name} not found`);
  return { ...row, environment: env };
}

/** One service, with the ownership status of each of its domains. */
export async function getService({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<ServiceView & { domainStatus: DomainStatusMap }> {
  const { service: s, appName, git } = await findService(ctx, envId, name, "service.read");
  return { ...serviceView(s, appName, git), domainStatus: await domainStatusOf(ctx, s) };
}

type ListedRow = {
  service: ServiceRow;
  appName: string;
  environment: string;
  projectId: string;
  project: string;
  status: typeof serviceStatus.$inferSelect | null;
  git: GitSourceRow | null;
};

/** A service of a list: its desired state, where it lives (for dashboards), and what the worker last saw. */
function serviceItem(r: ListedRow) {
  return {
    ...serviceView(r.service, r.appName, r.git),
    environment: r.environment,
    projectId: r.projectId,
    project: r.project,
    phase: r.status?.phase ?? (r.service.currentReleaseId ? "pending" : "stopped"),
    activeContainer: r.status?.activeContainer ?? null,
    message: r.status?.message ?? "",
    crashLooping: r.status?.crashLooping ?? false,
    restarts: r.status?.restarts ?? 0,
  };
}

/** Only services of environments the caller may see (a project-limited member: their project's). */
const visibleEnvironments = (ctx: Ctx) =>
  inArray(service.environmentId, ctx.db.select({ id: environment.id }).from(environment).where(visibleProjects(ctx, environment.orgId, environment.projectId)));

const listed = (ctx: Ctx) =>
  ctx.db
    .select({ service, appName: app.name, environment: environment.name, projectId: project.id, project: project.name, status: serviceStatus, git: gitSource })
    .from(service)
    .innerJoin(app, eq(app.id, service.appId))
    .innerJoin(environment, eq(environment.id, service.environmentId))
    .innerJoin(project, eq(project.id, environment.projectId))
    .leftJoin(serviceStatus, eq(serviceStatus.serviceId, service.id))
    .leftJoin(gitSource, eq(gitSource.serviceId, service.id));

/**
 * The services of the caller's organizations by project, environment, app and name; `envId`
 * narrows it to one environment (404 when it is not the caller's), `app` to one app of it.
 */
export async function listServices({ ctx, envId, app: appName }: { ctx: Ctx; envId?: string | undefined; app?: string | undefined }) {
  const env = envId === undefined ? undefined : await findEnvironment(ctx, envId, "service.read");
  const rows = await listed(ctx)
    .where(and(inArray(service.orgId, scope(ctx)), visibleEnvironments(ctx), env ? eq(service.environmentId, env.id) : undefined, appName ? eq(app.name, appName) : undefined))
    .orderBy(project.name, environment.name, app.name, service.name)
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "services", "page with ?limit= (at most 200) and ?cursor=, or narrow with ?environmentId= and ?app=").map(serviceItem);
}

const pageQuery = z
  .object({
    app: resourceName.optional(),
    environmentId: z.string().refine(isUuid, "must be an environment id").optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** The `nextCursor` of the previous page: the id of its last service. */
    cursor: z.string().refine(isUuid, "must be a nextCursor this list answered").optional(),
    /** Only services whose name contains this (any case). */
    name: z.string().max(63, "must be at most 63 characters").optional(),
    /** Only services in this phase (as the list shows it: never deployed is `stopped`, a release not yet picked up `pending`). */
    phase: z.enum(PHASES, { error: `must be one of ${PHASES.join(", ")}` }).optional(),
  })
  .strict();

/** The phase a list shows, in SQL: the worker's, else pending (a release waits) or stopped (never deployed). */
const listedPhase = sql`coalesce(${serviceStatus.phase}, case when ${service.currentReleaseId} is null then 'stopped' else 'pending' end)`;

/** `%…%` for ILIKE, with the pattern characters of the operator's text taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of the services of the caller's organizations (or of one app), newest first, so a
 * service just created is on the first page: `{services, nextCursor, total}`; `nextCursor` (null
 * on the last page) is the `cursor` of the next one. `name` and `phase` narrow it (and its total).
 */
export async function listServicesPage({ ctx, input }: { ctx: Ctx; input: unknown }) {
  const q = parse(pageQuery, input);
  const where = and(
    inArray(service.orgId, scope(ctx)),
    visibleEnvironments(ctx),
    q.environmentId ? eq(service.environmentId, q.environmentId) : undefined,
    q.app ? eq(app.name, q.app) : undefined,
    q.name ? ilike(service.name, containing(q.name)) : undefined,
    q.phase ? sql`${listedPhase} = ${q.phase}` : undefined,
  );
  // Keyset paging on (createdAt, id), compared in the database: a cursor never loses precision.
  const after = q.cursor
    ? sql`(${service.createdAt}, ${service.id}) < (select s.created_at, s.id from ${service} s where s.id = ${q.cursor})`
    : undefined;
  const [rows, [counted]] = await Promise.all([
    listed(ctx)
      .where(and(where, after))
      .orderBy(desc(service.createdAt), desc(service.id))
      .limit(q.limit + 1),
    ctx.db
      .select({ total: count() })
      .from(service)
      .innerJoin(app, eq(app.id, service.appId))
      .leftJoin(serviceStatus, eq(serviceStatus.serviceId, service.id))
      .where(where),
  ]);
  const page = rows.slice(0, q.limit).map(serviceItem);
  const last = page[page.length - 1];
  return { services: page, nextCursor: rows.length > q.limit && last ? last.id : null, total: counted?.total ?? 0 };
}

/**
 * What the active container runs. The status's image is the release the worker works on: while it
 * deploys (before the cutover) or after it failed, the old container still serves the newest
 * release that succeeded.
 */
async function servingImage(ctx: Ctx, s: ServiceRow, st: typeof serviceStatus.$inferSelect | undefined): Promise<string | null> {
  if (!st?.activeContainer) return null;
  if (st.phase === "running" || st.step === "cutover") return st.image;
  const [served] = await ctx.db
    .select({ spec: release.spec })
    .from(release)
    .where(and(eq(release.serviceId, s.id), eq(release.orgId, s.orgId), eq(release.outcome, "succeeded")))
    .orderBy(sql`${release.finishedAt} desc nulls last`, desc(release.createdAt))
    .limit(1);
  return served?.spec.image ?? st.image;
}

export async function getStatus({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<StatusView> {
  const { service: s } = await findService(ctx, envId, name, "service.read");
  const [st] = await ctx.db.select().from(serviceStatus).where(eq(serviceStatus.serviceId, s.id));
  const [route] = s.domains.length ? await ctx.db.select().from(ingressStatus).where(eq(ingressStatus.serviceId, s.id)) : [];
  const [last] = s.currentReleaseId
    ? await ctx.db.select().from(release).where(and(eq(release.id, s.currentReleaseId), eq(release.orgId, s.orgId)))
    : [];
  // While it crash-loops: the lines it printed before dying, kept (redacted) with the loop's start.
  const [loop] = st?.crashLooping
    ? await ctx.db
        .select({ detail: serviceEvent.detail })
        .from(serviceEvent)
        .where(and(eq(serviceEvent.serviceId, s.id), eq(serviceEvent.orgId, s.orgId), eq(serviceEvent.kind, "crash_loop_started")))
        .orderBy(desc(serviceEvent.at))
        .limit(1)
    : [];
  // A release the worker has not picked up yet shows as pending, whatever ran before.
  const pendingNew = last && last.outcome === "pending";
  const phase = pendingNew ? "pending" : (st?.phase ?? (last ? "pending" : "stopped"));
  return {
    phase,
    step: pendingNew ? null : (st?.step ?? null),
    image: st?.image ?? last?.spec.image ?? null,
    servingImage: await servingImage(ctx, s, st),
    targetImage: phase === "pending" || phase === "deploying" ? (last?.spec.image ?? null) : null,
    activeContainer: st?.activeContainer ?? null,
    lastDeploy: last ? releaseView(last) : null,
    message: pendingNew ? "waiting for the worker" : (st?.message ?? (last ? "waiting for the worker" : "not deployed yet")),
    updatedAt: st?.updatedAt.toISOString() ?? null,
    ingress: s.domains.length ? { domains: s.domains, live: route?.live ?? false, message: route?.message ?? "waiting for the ingress controller" } : null,
    crashLooping: st?.crashLooping ?? false,
    restarts: st?.restarts ?? 0,
    lastExit: st?.lastExit ?? null,
    lastLines: loop ? lastLinesOf(loop.detail) : null,
    replicas: st?.replicas ?? [],
  };
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { pageQuery as servicePageQuery };
