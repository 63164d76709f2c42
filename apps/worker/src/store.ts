import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { isServiceId } from "@levelrail/spec/keys";
import { envTargetFrom, secretKeysColumn } from "@levelrail/services/env/sources";
import { type ServiceEventKind, serviceEvent } from "@levelrail/db/schema/observability";
import { environment } from "@levelrail/db/schema/orgs";
import { app, release, service, serviceStatus } from "@levelrail/db/schema/services";
import type { DesiredService, ServiceStore, StatusWriter } from "./controllers/application/ports";

/** The PostgreSQL side of the application controller's ports. */
export function pgServiceStore(db: Db): ServiceStore &
  StatusWriter & { listDesiredServices(): Promise<DesiredService[]>; orgOf(serviceId: string): Promise<string | null> } {
  return {
    async getDesiredService(id): Promise<DesiredService | null> {
      // Not an id at all (an old name-keyed wake-up): no such service, rather than a query error retried forever.
      if (!isServiceId(id)) return null;
      // One round trip: every pass of every service starts here.
      const [row] = await desiredQuery(db).where(eq(service.id, id));
      return row ? desiredService(row) : null;
    },
    /** Every service's desired state in one query (a resync's passes read it instead of one query each). */
    async listDesiredServices(): Promise<DesiredService[]> {
      return (await desiredQuery(db)).map(desiredService);
    },
    /** The service's organization (its key's tenant in the runner), null when there is no such service. */
    async orgOf(id) {
      if (!isServiceId(id)) return null;
      const [row] = await db.select({ orgId: service.orgId }).from(service).where(eq(service.id, id));
      return row?.orgId ?? null;
    },
    async setStatus(serviceId, st) {
      const values = { ...st, replicas: st.replicas ?? [], updatedAt: new Date() };
      await db
        .insert(serviceStatus)
        .values({ serviceId, ...values })
        .onConflictDoUpdate({ target: serviceStatus.serviceId, set: values })
        .catch((err: unknown) => {
          // The service was deleted while we worked: nothing left to report on.
          if ((err as { code?: string; cause?: { code?: string } }).cause?.code === "23503") return;
          throw err;
        });
    },
    async updateRelease(releaseId, u) {
      const now = new Date();
      await db
        .update(release)
        .set({
          ...(u.imageId === undefined ? {} : { imageId: u.imageId }),
          ...(u.imageCreatedAt === undefined ? {} : { imageCreatedAt: u.imageCreatedAt }),
          ...(u.outcome === undefined ? {} : { outcome: u.outcome }),
          ...(u.message === undefined ? {} : { message: u.message }),
          ...(u.container === undefined ? {} : { container: u.container }),
          ...(u.outcome === "deploying" ? { startedAt: now } : {}),
          ...(u.outcome === "succeeded" || u.outcome === "failed" ? { finishedAt: now } : {}),
        })
        .where(and(eq(release.id, releaseId), inArray(release.outcome, ["pending", "deploying"])));
    },
  };
}

/** The service with its app, environment, current release, secret keys, last event and stored status: one round trip. */
const desiredQuery = (db: Db) =>
  db
    .select({
      // Only the columns a pass reads: a resync holds every service's row at once.
      service: {
        id: service.id,
        name: service.name,
        appId: service.appId,
        environmentId: service.environmentId,
        orgId: service.orgId,
        registryCredentialId: service.registryCredentialId,
        env: service.env,
        storageTargetId: service.storageTargetId,
        databaseEnv: service.databaseEnv,
      },
      release: {
        id: release.id,
        spec: release.spec,
        restartNonce: release.restartNonce,
        imageId: release.imageId,
        outcome: release.outcome,
        finishedAt: release.finishedAt,
        message: release.message,
      },
      status: serviceStatus,
      appName: app.name,
      projectId: environment.projectId,
      secretKeys: secretKeysColumn(),
      lastEvent: lastEventColumn(),
    })
    .from(service)
    .innerJoin(app, eq(app.id, service.appId))
    .innerJoin(environment, eq(environment.id, service.environmentId))
    .leftJoin(release, and(eq(release.id, service.currentReleaseId), eq(release.orgId, service.orgId)))
    .leftJoin(serviceStatus, eq(serviceStatus.serviceId, service.id))
    .$dynamic();

type DesiredRow = Awaited<ReturnType<typeof desiredQuery>>[number];

function desiredService(row: DesiredRow): DesiredService {
  const s = row.service;
  const r = row.release;
  const st = row.status;
  return {
    id: s.id,
    name: s.name,
    appId: s.appId,
    appName: row.appName,
    environmentId: s.environmentId,
    orgId: s.orgId,
    registryCredentialId: s.registryCredentialId,
    envTarget: envTargetFrom(s, row.projectId, row.secretKeys),
    release: r
      ? { id: r.id, spec: r.spec, restartNonce: r.restartNonce, imageId: r.imageId, outcome: r.outcome, finishedAt: r.finishedAt?.getTime() ?? null, message: r.message }
      : null,
    lastEvent: row.lastEvent,
    storedStatus: st
      ? { phase: st.phase, step: st.step, image: st.image, activeContainer: st.activeContainer, message: st.message, crashLooping: st.crashLooping, restarts: st.restarts, lastExit: st.lastExit, replicas: st.replicas }
      : null,
  };
}

/** The kind of the service's last event, in the same round trip as the service (a crash loop's transitions compare with it). */
const lastEventColumn = () =>
  sql<ServiceEventKind | null>`(select ${serviceEvent.kind} from ${serviceEvent} where ${serviceEvent.serviceId} = ${service.id} order by ${serviceEvent.at} desc limit 1)`;
