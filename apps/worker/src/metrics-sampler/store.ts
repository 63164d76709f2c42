import { and, eq, inArray, isNotNull, lt } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { containerMetric } from "@levelrail/db/schema/observability";
import { environment } from "@levelrail/db/schema/orgs";
import { service, serviceStatus } from "@levelrail/db/schema/services";
import type { ActiveService, ContainerSample, MetricStore } from "./sampler";

/** The PostgreSQL side of the sampler: the status rows say which container is active; samples go to `container_metric`. */
export function pgMetricStore(db: Db): MetricStore & { activeServices(): Promise<ActiveService[]> } {
  return {
    async activeServices() {
      const rows = await db
        .select({ serviceId: service.id, service: service.name, environmentId: service.environmentId, environment: environment.name, container: serviceStatus.activeContainer })
        .from(serviceStatus)
        .innerJoin(service, eq(service.id, serviceStatus.serviceId))
        .innerJoin(environment, eq(environment.id, service.environmentId))
        .where(and(isNotNull(serviceStatus.activeContainer), inArray(serviceStatus.phase, ["running", "deploying", "failed"])));
      return rows.flatMap((r) => (r.container === null ? [] : [{ ...r, container: r.container }]));
    },
    async insert(samples: ContainerSample[]) {
      // A service deleted since the round began has nowhere to put its sample: the others are kept.
      await db.insert(containerMetric).values(samples).catch(async (err: unknown) => {
        if (!deleted(err)) throw err;
        for (const s of samples) await db.insert(containerMetric).values(s).catch((e: unknown) => { if (!deleted(e)) throw e; });
      });
    },
    async prune(before) {
      await db.delete(containerMetric).where(lt(containerMetric.at, before));
    },
  };
}

/** A foreign key violation: the sample's service is gone. */
const deleted = (err: unknown) => (err as { cause?: { code?: string } }).cause?.code === "23503";
