import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { domainProof } from "@levelrail/db/schema/domains";
import { deploySample, ingressStatus, pulledImage } from "@levelrail/db/schema/fleet";
import { app, release, service } from "@levelrail/db/schema/services";
import { emitDeploy } from "./notifications/emit";
import type { PullRecorder } from "./controllers/application/ports";
import type { ImageStore } from "./controllers/image-cleanup/reconcile";
import type { IngressStore } from "./controllers/ingress/reconcile";
import type { AppStore } from "./controllers/network-cleanup/reconcile";

/** The PostgreSQL side of the whole-fleet controllers and deploy metrics. */
export function pgFleetStore(db: Db): IngressStore & AppStore & ImageStore & PullRecorder & { recordDeploy(releaseId: string, outcome: "succeeded" | "failed"): Promise<number | null> } {
  return {
    async listRoutes() {
      const rows = await db
        .select({ id: service.id, orgId: service.orgId, name: service.name, app: app.name, port: service.port, domains: service.domains, releasePort: sql<number | null>`(${release.spec} ->> 'port')::int` })
        .from(service)
        .innerJoin(app, eq(app.id, service.appId))
        .leftJoin(release, eq(release.id, service.currentReleaseId))
        .orderBy(asc(service.createdAt), asc(service.id)); // the oldest claimant of a domain keeps it
      // The running release's port: editing the draft does not move traffic before a Deploy.
      return rows.map((r) => ({ serviceId: r.id, orgId: r.orgId, service: r.name, app: r.app, port: r.releasePort ?? r.port, domains: r.domains }));
    },
    async provenDomains() {
      const rows = await db.select({ orgId: domainProof.orgId, domain: domainProof.domain }).from(domainProof).where(eq(domainProof.status, "verified"));
      return new Set(rows.map((r) => `${r.orgId} ${r.domain}`));
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
    async neededImages(keepReleases) {
      // Per service: its last `keepReleases` succeeded releases, its current one, any still in flight.
      const rows = await db.execute<{ image_id: string | null; image: string | null }>(sql`
        select r.image_id, r.spec ->> 'image' as image from ${release} r
        where r.outcome in ('pending', 'deploying')
          or r.id in (select current_release_id from ${service} where current_release_id is not null)
          or r.id in (
            select id from (
              select id, row_number() over (partition by service_id order by coalesce(finished_at, created_at) desc) as n
              from ${release} where outcome = 'succeeded'
            ) last where n <= ${keepReleases}
          )`);
      const ids = new Set<string>();
      const refs = new Set<string>();
      for (const r of rows) {
        if (r.image_id) ids.add(r.image_id);
        if (r.image) refs.add(r.image);
      }
      return { ids, refs };
    },
    async pulledImages() {
      const rows = await db.select().from(pulledImage);
      return rows.map((r) => ({ imageId: r.imageId, ref: r.ref, pulledAt: r.pulledAt.getTime() }));
    },
    async forgetPulled(rows) {
      if (rows.length === 0) return;
      await db.delete(pulledImage).where(or(...rows.map((r) => and(eq(pulledImage.imageId, r.imageId), eq(pulledImage.ref, r.ref)))));
    },
    async recordPull(imageId, ref) {
      const now = new Date();
      await db.insert(pulledImage).values({ imageId, ref, pulledAt: now }).onConflictDoUpdate({ target: [pulledImage.imageId, pulledImage.ref], set: { pulledAt: now } });
    },
    async recordDeploy(releaseId, outcome) {
      const [r] = await db
        .select({ orgId: release.orgId, serviceId: release.serviceId, startedAt: release.startedAt, createdAt: release.createdAt })
        .from(release)
        .where(and(eq(release.id, releaseId), inArray(release.outcome, ["pending", "deploying", "succeeded", "failed"])));
      if (!r) return null;
      const durationMs = Date.now() - (r.startedAt ?? r.createdAt).getTime();
      await db.transaction(async (tx) => {
        const added = await tx.insert(deploySample).values({ orgId: r.orgId, serviceId: r.serviceId, releaseId, outcome, durationMs }).onConflictDoNothing().returning({ id: deploySample.id });
        // Once per release, with its sample: `deploy.failed` / `deploy.succeeded` to the channels that picked it.
        if (added.length) await emitDeploy(tx, releaseId, outcome);
      });
      return durationMs;
    },
  };
}
