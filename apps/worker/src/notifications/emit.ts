import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { notifyDesired } from "@levelrail/db/notify";
import { backup, managedDatabase } from "@levelrail/db/schema/databases";
import { hookRun } from "@levelrail/db/schema/hooks";
import { notificationChannel, notificationDelivery } from "@levelrail/db/schema/notifications";
import { serviceEvent } from "@levelrail/db/schema/observability";
import { environment, organization, project } from "@levelrail/db/schema/orgs";
import { app, release, service } from "@levelrail/db/schema/services";
import { notificationsKey } from "@levelrail/spec/keys";
import { type NotificationEvent, type NotificationPayload, payloadOf } from "@levelrail/spec/notifications";

/** The database or a transaction of it: emission joins the transaction of the change it reports. */
export type Tx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The most of a message a notification carries. */
const MAX_MESSAGE = 1000;

/**
 * Enqueues `payload` for every channel of the organization that picked its event: one pending
 * delivery each, and wakes the organization's outbox (`notifications:<orgId>`, at the commit of
 * `tx`), whose controller sends them (controllers/notifications). Answers how many.
 */
export async function enqueue(tx: Tx, orgId: string, event: NotificationEvent, payload: NotificationPayload): Promise<number> {
  const channels = await tx
    .select({ id: notificationChannel.id })
    .from(notificationChannel)
    .where(and(eq(notificationChannel.orgId, orgId), sql`${notificationChannel.events} @> ${JSON.stringify([event])}::jsonb`));
  if (!channels.length) return 0;
  await tx.insert(notificationDelivery).values(channels.map((c) => ({ orgId, channelId: c.id, event, payload: { ...payload } })));
  await notifyDesired(tx, notificationsKey(orgId));
  return channels.length;
}

/** A service's names (organization, project, environment, app), for its notifications. */
async function serviceContext(tx: Tx, serviceId: string) {
  const [r] = await tx
    .select({
      org: { id: organization.id, name: organization.name },
      project: { id: project.id, name: project.name },
      environment: { id: environment.id, name: environment.name },
      service: { id: service.id, name: service.name, app: app.name },
    })
    .from(service)
    .innerJoin(app, eq(app.id, service.appId))
    .innerJoin(environment, eq(environment.id, service.environmentId))
    .innerJoin(project, eq(project.id, environment.projectId))
    .innerJoin(organization, eq(organization.id, service.orgId))
    .where(eq(service.id, serviceId));
  return r ?? null;
}

const clip = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text);

/** A release went live (`succeeded`) or failed: `deploy.succeeded` / `deploy.failed`. Its message is already redacted. */
export async function emitDeploy(tx: Tx, releaseId: string, outcome: "succeeded" | "failed"): Promise<number> {
  const [r] = await tx.select({ id: release.id, serviceId: release.serviceId, spec: release.spec, message: release.message }).from(release).where(eq(release.id, releaseId));
  const where = r ? await serviceContext(tx, r.serviceId) : null;
  if (!r || !where) return 0;
  const event: NotificationEvent = outcome === "failed" ? "deploy.failed" : "deploy.succeeded";
  const message = outcome === "failed" ? clip(r.message || "the deploy failed") : `${r.spec.image} is live`;
  return enqueue(tx, where.org.id, event, {
    ...payloadOf(event, where.org, message, new Date()),
    project: where.project,
    environment: where.environment,
    service: where.service,
    release: { id: r.id, image: r.spec.image, outcome },
  });
}

/** A hook run that did not succeed: `hook.failed` with its (redacted) message, never its output. */
export async function emitHookFailed(tx: Tx, runId: string): Promise<number> {
  const [h] = await tx
    .select({ id: hookRun.id, serviceId: hookRun.serviceId, phase: hookRun.phase, message: hookRun.message, outcome: hookRun.outcome, releaseId: hookRun.releaseId })
    .from(hookRun)
    .where(eq(hookRun.id, runId));
  if (!h || h.outcome === "succeeded" || h.outcome === "running") return 0;
  const where = await serviceContext(tx, h.serviceId);
  if (!where) return 0;
  const [r] = await tx.select({ spec: release.spec, outcome: release.outcome }).from(release).where(eq(release.id, h.releaseId));
  return enqueue(tx, where.org.id, "hook.failed", {
    ...payloadOf("hook.failed", where.org, clip(h.message || `the ${h.phase} hook ${h.outcome}`), new Date()),
    project: where.project,
    environment: where.environment,
    service: where.service,
    release: r ? { id: h.releaseId, image: r.spec.image, outcome: r.outcome } : null,
    hookRun: { id: h.id, phase: h.phase === "pre" ? "pre-deploy" : "post-deploy" },
  });
}

/** A backup that ended `failed` or `unverified` (its message redacted by the backup itself). */
export async function emitBackup(tx: Tx, backupId: string): Promise<number> {
  const [b] = await tx
    .select({
      id: backup.id,
      status: backup.status,
      message: backup.message,
      database: { id: managedDatabase.id, name: managedDatabase.name },
      environment: { id: environment.id, name: environment.name },
      project: { id: project.id, name: project.name },
      org: { id: organization.id, name: organization.name },
    })
    .from(backup)
    .innerJoin(managedDatabase, eq(managedDatabase.id, backup.databaseId))
    .innerJoin(environment, eq(environment.id, managedDatabase.environmentId))
    .innerJoin(project, eq(project.id, environment.projectId))
    .innerJoin(organization, eq(organization.id, backup.orgId))
    .where(eq(backup.id, backupId));
  if (!b || (b.status !== "failed" && b.status !== "unverified")) return 0;
  const event: NotificationEvent = b.status === "failed" ? "backup.failed" : "backup.unverified";
  return enqueue(tx, b.org.id, event, {
    ...payloadOf(event, b.org, clip(b.message), new Date()),
    project: b.project,
    environment: b.environment,
    database: b.database,
    backup: { id: b.id, status: b.status },
  });
}

/** How far back crash loops are looked for (a worker down longer misses older ones). */
const CRASH_LOOKBACK = "1 day";

/** Crash loops (of `orgId`, or of every organization) not yet enqueued for a channel that picked `crash_loop.started` and existed then (at most `limit`, oldest first). */
function crashLoopsDue(db: Db, orgId: string | null, limit: number) {
  return db.execute<{ id: string; org_id: string; service_id: string; detail: string; at: string | Date; channel_id: string }>(sql`
    select e.id, e.org_id, e.service_id, e.detail, e.at, c.id as channel_id
    from ${serviceEvent} e
    join ${notificationChannel} c on c.org_id = e.org_id and c.events @> '["crash_loop.started"]'::jsonb and c.created_at <= e.at
    where ${orgId === null ? sql`true` : sql`e.org_id = ${orgId}`} and e.kind = 'crash_loop_started' and e.at > now() - ${CRASH_LOOKBACK}::interval
      and not exists (
        select 1 from ${notificationDelivery} d
        where d.channel_id = c.id and d.event = 'crash_loop.started' and d.payload -> 'crashLoop' ->> 'id' = e.id::text
      )
    order by e.at
    limit ${limit}`);
}

/** How many crash loops of `orgId` `emitCrashLoops` would enqueue now (up to `limit`). */
export async function countCrashLoops(db: Db, orgId: string, limit = 100): Promise<number> {
  return (await crashLoopsDue(db, orgId, limit)).length;
}

/** Organizations with crash loops still to enqueue (of the oldest 1,000): the resync wakes their outboxes. */
export async function crashLoopOrgs(db: Db): Promise<string[]> {
  return [...new Set((await crashLoopsDue(db, null, 1000)).map((r) => r.org_id))];
}

/**
 * Crash loops of `orgId` that started (`service_event` rows of kind `crash_loop_started`, written
 * where they are noticed, which wakes the organization's outbox) and are not yet enqueued for a
 * channel that picked `crash_loop.started` and existed then: one delivery per event and channel,
 * however often this runs. Answers how many it enqueued.
 */
export async function emitCrashLoops(db: Db, orgId: string, limit = 100): Promise<number> {
  let n = 0;
  for (const e of await crashLoopsDue(db, orgId, limit)) {
    const where = await serviceContext(db, e.service_id);
    if (!where) continue;
    const payload: NotificationPayload = {
      ...payloadOf("crash_loop.started", where.org, clip(e.detail || "the container keeps exiting and being restarted"), new Date(e.at)),
      project: where.project,
      environment: where.environment,
      service: where.service,
      crashLoop: { id: e.id },
    };
    await db.insert(notificationDelivery).values({ orgId: where.org.id, channelId: e.channel_id, event: "crash_loop.started", payload: { ...payload } });
    n++;
  }
  return n;
}
