import { and, asc, eq, gte } from "drizzle-orm";
import { z } from "zod";
import { containerMetric } from "@levelrail/db/schema/observability";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, parse } from "../context";
import { findService } from "../service/view";

/** The window the service page charts, and the default `since`. */
export const METRICS_WINDOW_MS = 3_600_000;
/** The most samples one answer carries (an hour at one a second is 3,600); more is a 400 naming `since`. */
export const MAX_CONTAINER_SAMPLES = 10_000;

const query = z.object({ since: z.iso.datetime({ offset: true, error: "must be an ISO date-time, e.g. 2026-01-01T00:00:00Z" }).optional() }).strict();

export interface ContainerSampleView {
  at: string;
  container: string;
  /** Percent of one CPU over the sampling interval (200 = two CPUs). */
  cpuPercent: number;
  memoryBytes: number;
  /** Null: the container has no memory limit. */
  memoryLimitBytes: number | null;
  /** Since the container started (a new container starts from 0). */
  netRxBytes: number;
  netTxBytes: number;
}

/**
 * The samples of a service's active container since `since` (default: an hour ago), oldest first: CPU,
 * memory against its limit, network counters. The worker keeps an hour of them.
 */
export async function serviceMetrics({ ctx, envId, name, input }: { ctx: Ctx; envId: string; name: string; input: unknown }): Promise<{ since: string; samples: ContainerSampleView[] }> {
  const q = parse(query, input);
  const { service: s } = await findService(ctx, envId, name, "metrics.read");
  const since = q.since ? new Date(q.since) : new Date(Date.now() - METRICS_WINDOW_MS);
  const rows = await ctx.db
    .select()
    .from(containerMetric)
    .where(and(eq(containerMetric.serviceId, s.id), gte(containerMetric.at, since)))
    .orderBy(asc(containerMetric.at))
    .limit(MAX_CONTAINER_SAMPLES + 1);
  if (rows.length > MAX_CONTAINER_SAMPLES) {
    throw new LevelrailError("invalid_input", `since: more than ${MAX_CONTAINER_SAMPLES} samples since ${since.toISOString()}; ask for a later since`, { field: "since" });
  }
  return {
    since: since.toISOString(),
    samples: rows.map((r) => ({
      at: r.at.toISOString(),
      container: r.container,
      cpuPercent: r.cpuPercent,
      memoryBytes: r.memoryBytes,
      memoryLimitBytes: r.memoryLimitBytes,
      netRxBytes: r.netRxBytes,
      netTxBytes: r.netTxBytes,
    })),
  };
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { query as serviceMetricsQuery };
