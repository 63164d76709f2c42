import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { deploySample, ingressStatus } from "@levelrail/db/schema/fleet";
import { app, release, service } from "@levelrail/db/schema/services";
import type { IngressStore } from "./controllers/ingress/reconcile";
import type { AppStore } from "./controllers/network-cleanup/reconcile";

/** The PostgreSQL side of the whole-fleet controllers and deploy metrics. */
export function pgFleetStore(db: Db): IngressStore & AppStore & { recordDeploy(releaseId: string, outcome: "succeeded" | "failed"): Promise<number | null> } {
  return {
    async listRoutes() {
      const rows = await db
        .select({ id: service.id, name: service.name, app: app.name, port: service.port, domains: service.domains, releasePort: sql<number | null>`(${release.spec} ->> 'port')::int` })
        .from(service)
        .innerJoin(app, eq(app.id, service.appId))
        .leftJoin(release, eq(release.id, service.currentReleaseId))
        .orderBy(asc(service.createdAt), asc(service.id)); // the oldest claimant of a domain keeps it
      // The running release's port: editing the draft does not move traffic before a Deploy.
      return rows.map((r) => ({ serviceId: r.id, service: r.name, app: r.app, port: r.releasePort ?? r.port, domains: r.domains }));
    },
    async setIngressStatus(serviceIds, live, message) {
      if (serviceIds.length === 0) return;
      const now = new Date();
      await db
        .insert(ingressStatus)
        .values(serviceIds.map((serviceId) => ({ serviceId, live, message, updatedAt: now })))
        .onConflictDoUpdate({ target: ingressStatus.serviceId, set: { live, message, updatedAt: now } })
        .catch((err: unknown) => {
          if ((err as { cause?: { code?: string } }).cause?.code !== "23503") throw err; // a service deleted meanwhile
        });
    },
    async appIds() {
      return new Set((await db.select({ id: app.id }).from(app)).map((r) => r.id));
    },
    async recordDeploy(releaseId, outcome) {
      const [r] = await db
        .select({ orgId: release.orgId, serviceId: release.serviceId, startedAt: release.startedAt, createdAt: release.createdAt })
        .from(release)
        .where(and(eq(release.id, releaseId), inArray(release.outcome, ["pending", "deploying", "succeeded", "failed"])));
      if (!r) return null;
      const durationMs = Date.now() - (r.startedAt ?? r.createdAt).getTime();
      await db.insert(deploySample).values({ orgId: r.orgId, serviceId: r.serviceId, releaseId, outcome, durationMs }).onConflictDoNothing();
      return durationMs;
    },
  };
}
