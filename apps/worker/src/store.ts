import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { isServiceId } from "@levelrail/spec/keys";
import { envTargetFrom, secretKeysColumn } from "@levelrail/services/env/sources";
import { type ServiceEventKind, serviceEvent } from "@levelrail/db/schema/observability";
import { environment } from "@levelrail/db/schema/orgs";
import { app, release, service, serviceStatus } from "@levelrail/db/schema/services";
import type { DesiredService, ServiceStore, StatusWriter } from "./controllers/application/ports";

/** The PostgreSQL side of the application controller's ports. */
export function pgServiceStore(db: Db): ServiceStore & StatusWriter & { listServiceIds(): Promise<string[]>; orgOf(serviceId: string): Promise<string | null> } {
  return {
    async getDesiredService(id): Promise<DesiredService | null> {
      // Not an id at all (an old name-keyed wake-up): no such service, rather than a query error retried forever.
      if (!isServiceId(id)) return null;
      // One round trip: every pass of every service starts here.
      const [row] = await db
        .select({ service, release, appName: app.name, projectId: environment.projectId, secretKeys: secretKeysColumn(), lastEvent: lastEventColumn() })
        .from(service)
        .innerJoin(app, eq(app.id, service.appId))
        .innerJoin(environment, eq(environment.id, service.environmentId))
        .leftJoin(release, and(eq(release.id, service.currentReleaseId), eq(release.orgId, service.orgId)))
        .where(eq(service.id, id));
      if (!row) return null;
      const s = row.service;
      const r = row.release;
      const envTarget = envTargetFrom(s, row.projectId, row.secretKeys);
      return {
        id: s.id,
        name: s.name,
        appId: s.appId,
        appName: row.appName,
        environmentId: s.environmentId,
        orgId: s.orgId,
        registryCredentialId: s.registryCredentialId,
        envTarget,
        release: r
          ? { id: r.id, spec: r.spec, restartNonce: r.restartNonce, imageId: r.imageId, outcome: r.outcome, finishedAt: r.finishedAt?.getTime() ?? null, message: r.message }
          : null,
        lastEvent: row.lastEvent,
      };
    },
    /** The service's organization (its key's tenant in the runner), null when there is no such service. */
    async orgOf(id) {
      if (!isServiceId(id)) return null;
      const [row] = await db.select({ orgId: service.orgId }).from(service).where(eq(service.id, id));
      return row?.orgId ?? null;
    },
    async listServiceIds() {
      const rows = await db.select({ id: service.id }).from(service);
      return rows.map((r) => r.id);
    },
    async setStatus(serviceId, st) {
      const values = { ...st, updatedAt: new Date() };
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

/** The kind of the service's last event, in the same round trip as the service (a crash loop's transitions compare with it). */
const lastEventColumn = () =>
  sql<ServiceEventKind | null>`(select ${serviceEvent.kind} from ${serviceEvent} where ${serviceEvent.serviceId} = ${service.id} order by ${serviceEvent.at} desc limit 1)`;
