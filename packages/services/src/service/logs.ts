import { and, eq } from "drizzle-orm";
import { release, serviceStatus } from "@levelrail/db/schema/services";
import { type EnvEntry, UnresolvableError, resolveEnv } from "@levelrail/spec/env";
import { DEFAULT_SHORT_NAME, serviceFilter } from "@levelrail/spec/naming";
import type { Ctx } from "../context";
import { envTargetOf, pgEnvStores } from "../env/sources";
import { findService } from "./view";

/** Whose logs a request may read: one service of the caller's organizations (404 otherwise). */
export interface LogSubject {
  serviceId: string;
  orgId: string;
  name: string;
  /** The engine's label filter for every container of this service (and only this service). */
  labelFilter: string[];
}

/** The service's active container as the worker last wrote it, and when it wrote that. */
export interface ActiveContainer {
  container: string | null;
  /** When the status row was written (the worker's clock, the engine's host). */
  at: Date | null;
}

export async function logSubject({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<LogSubject> {
  const { service: s } = await findService(ctx, envId, name);
  return { serviceId: s.id, orgId: s.orgId, name: s.name, labelFilter: serviceFilter(ctx.shortName ?? DEFAULT_SHORT_NAME, s.id) };
}

/** One cheap read (the status row by its key), polled while a stream follows the service. */
export async function activeContainer(ctx: Pick<Ctx, "db">, subject: LogSubject): Promise<ActiveContainer> {
  const [row] = await ctx.db
    .select({ container: serviceStatus.activeContainer, at: serviceStatus.updatedAt })
    .from(serviceStatus)
    .where(eq(serviceStatus.serviceId, subject.serviceId));
  return { container: row?.container ?? null, at: row?.at ?? null };
}

/** When a release of this service went live (its container took traffic); null while it has not. */
export async function releaseLiveAt(ctx: Pick<Ctx, "db">, subject: LogSubject, releaseId: string): Promise<Date | null> {
  if (!/^[0-9a-f-]{36}$/i.test(releaseId)) return null;
  const [row] = await ctx.db
    .select({ finishedAt: release.finishedAt, outcome: release.outcome })
    .from(release)
    .where(and(eq(release.id, releaseId), eq(release.serviceId, subject.serviceId), eq(release.orgId, subject.orgId)));
  return row?.outcome === "succeeded" ? row.finishedAt : null;
}

/**
 * What to hide in the service's log lines: its secrets and credentials (database URLs, storage
 * keys) as they resolve now, by key, so that a container's own values under those keys (from its
 * release, before a rotation) are hidden too. Read once when a stream opens; never returned.
 */
export async function logSecrets(ctx: Ctx, subject: LogSubject): Promise<{ key: string; value: string }[]> {
  const target = await envTargetOf(ctx.db, subject.serviceId);
  if (!target) return [];
  const stores = pgEnvStores(ctx.db, ctx.kit.keyring);
  let entries: EnvEntry[];
  try {
    entries = await resolveEnv(target, stores);
  } catch (err) {
    if (!(err instanceof UnresolvableError)) throw err;
    // Something declared does not resolve (its deploy fails naming it): hide what does.
    entries = await resolveEnv({ ...target, storageTargetId: null, databaseEnv: {} }, stores).catch((e: unknown) => {
      if (e instanceof UnresolvableError) return [];
      throw e;
    });
  }
  return entries.filter((e) => e.sensitive).map((e) => ({ key: e.key, value: e.value }));
}
