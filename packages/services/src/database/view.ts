import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { backup, databaseRestore, databaseStatus, databaseVolume, managedDatabase } from "@levelrail/db/schema/databases";
import { app, service } from "@levelrail/db/schema/services";
import type { BackupSchedule, BackupStatus, BackupStep, BackupVerification, DatabasePhase, RestoreMode, RestoreStatus } from "@levelrail/spec/database";
import { nextDue } from "@levelrail/spec/cron";
import { LevelrailError } from "@levelrail/spec/errors";
import { DEFAULT_SHORT_NAME } from "@levelrail/spec/naming";
import { type Ctx, MAX_LIST_ROWS, bounded, scope } from "../context";
import type { Action } from "../org/permissions";
import { findEnvironment } from "../project/list";

export type DatabaseRow = typeof managedDatabase.$inferSelect;
type BackupRow = typeof backup.$inferSelect;
type RestoreRow = typeof databaseRestore.$inferSelect;

export const shortNameOf = (ctx: Ctx) => ctx.shortName ?? DEFAULT_SHORT_NAME;

/** A database as the API answers it (docs/operating/databases-and-backups.md): never its password. */
export interface DatabaseView {
  id: string;
  name: string;
  environmentId: string;
  engine: string;
  version: string;
  image: string;
  phase: DatabasePhase;
  message: string;
  backupSchedule: BackupSchedule | null;
  /**
   * When the schedule fires next (UTC), null without one. Worked out here, with the same cron
   * library the scheduler uses, so the panel's pages need not ship it (about 10 kB gzip).
   */
  nextBackupAt: string | null;
  createdAt: string;
  /** How attached services reach it: host (on their app network), port, user and database; the password is never shown. */
  connection: { host: string; port: number; user: string; database: string };
  volume: string;
  /** Node labels its server's node must carry (a swarm); `{}`: the manager's engine. */
  placement: Record<string, string>;
}

/** The database's detail: who attaches it, its kept volumes and its latest restores. */
export interface DatabaseDetail extends DatabaseView {
  attachedBy: { service: string; app: string; key: string }[];
  previousVolumes: { name: string; retiredAt: string; removing: boolean }[];
  restores: RestoreView[];
}

export interface BackupView {
  id: string;
  databaseId: string;
  status: BackupStatus;
  step: BackupStep | null;
  message: string;
  startedAt: string | null;
  finishedAt: string | null;
  sizeBytes: number | null;
  sha256: string | null;
  objectKey: string | null;
  targetId: string | null;
  /** `schedule` (with the due time it ran for) or `manual`. */
  trigger: "schedule" | "manual";
  scheduledFor: string | null;
  verification: BackupVerification | null;
  /** Set when the keep rule removed the object from the target. */
  prunedAt: string | null;
  createdAt: string;
}

export interface RestoreView {
  id: string;
  databaseId: string;
  backupId: string | null;
  mode: RestoreMode;
  status: RestoreStatus;
  message: string;
  volume: string;
  createdAt: string;
  finishedAt: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function databaseView(d: DatabaseRow, status: { phase: DatabasePhase; message: string } | null): DatabaseView {
  return {
    id: d.id,
    name: d.name,
    environmentId: d.environmentId,
    engine: d.engine,
    version: d.version,
    image: d.image,
    phase: status?.phase ?? "pending",
    message: status?.message ?? "",
    backupSchedule: d.backupSchedule ?? null,
    nextBackupAt: d.backupSchedule ? iso(nextDue(d.backupSchedule.cron, new Date())) : null,
    createdAt: d.createdAt.toISOString(),
    connection: { host: d.name, port: 5432, user: d.username, database: d.name },
    volume: d.volume,
    placement: d.placement ?? {},
  };
}

export const backupView = (b: BackupRow): BackupView => ({
  id: b.id,
  databaseId: b.databaseId,
  status: b.status,
  step: b.step,
  message: b.message,
  startedAt: iso(b.startedAt),
  finishedAt: iso(b.finishedAt),
  sizeBytes: b.sizeBytes,
  sha256: b.sha256,
  objectKey: b.objectKey,
  targetId: b.targetId,
  trigger: b.scheduledFor ? "schedule" : "manual",
  scheduledFor: iso(b.scheduledFor),
  verification: b.verification,
  prunedAt: iso(b.prunedAt),
  createdAt: b.createdAt.toISOString(),
});

export const restoreView = (r: RestoreRow): RestoreView => ({
  id: r.id,
  databaseId: r.databaseId,
  backupId: r.backupId,
  mode: r.mode,
  status: r.status,
  message: r.message,
  volume: r.volume,
  createdAt: r.createdAt.toISOString(),
  finishedAt: iso(r.finishedAt),
});

/** The databases of one environment, by name. */
export async function listDatabases({ ctx, envId }: { ctx: Ctx; envId: string }): Promise<DatabaseView[]> {
  const env = await findEnvironment(ctx, envId, "database.read");
  const rows = await ctx.db
    .select({ d: managedDatabase, phase: databaseStatus.phase, message: databaseStatus.message })
    .from(managedDatabase)
    .leftJoin(databaseStatus, eq(databaseStatus.databaseId, managedDatabase.id))
    .where(and(eq(managedDatabase.environmentId, env.id), eq(managedDatabase.orgId, env.orgId)))
    .orderBy(managedDatabase.name)
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "databases in this environment", "split them over more environments").map((r) =>
    databaseView(r.d, r.phase === null ? null : { phase: r.phase, message: r.message ?? "" }),
  );
}

/** A database of an environment of the caller's organizations by name, as its row, or 404. */
export async function findDatabase(ctx: Ctx, envId: string, name: string, action: Action): Promise<DatabaseRow> {
  const env = await findEnvironment(ctx, envId, action);
  const [row] = await ctx.db
    .select()
    .from(managedDatabase)
    .where(and(eq(managedDatabase.environmentId, env.id), eq(managedDatabase.name, name), inArray(managedDatabase.orgId, scope(ctx))));
  if (!row) throw new LevelrailError("not_found", `database ${name} not found`);
  return row;
}

/** The services of the database's environment whose `databaseEnv` names it, with the key each gets. */
export async function attachmentsOf(ctx: Pick<Ctx, "db">, d: Pick<DatabaseRow, "environmentId" | "name" | "orgId">) {
  const rows = await ctx.db
    .select({ service: service.name, app: app.name, databaseEnv: service.databaseEnv })
    .from(service)
    .innerJoin(app, eq(app.id, service.appId))
    .where(
      and(
        eq(service.environmentId, d.environmentId),
        eq(service.orgId, d.orgId),
        sql`exists (select 1 from jsonb_each(${service.databaseEnv}) e where e.value->>'from' = ${d.name})`,
      ),
    )
    .orderBy(service.name);
  return rows.flatMap((r) =>
    Object.entries(r.databaseEnv)
      .filter(([, v]) => v.from === d.name)
      .map(([key]) => ({ service: r.service, app: r.app, key })),
  );
}

export async function getDatabase({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<DatabaseDetail> {
  const d = await findDatabase(ctx, envId, name, "database.read");
  const [status] = await ctx.db.select().from(databaseStatus).where(eq(databaseStatus.databaseId, d.id));
  const volumes = await ctx.db.select().from(databaseVolume).where(eq(databaseVolume.databaseId, d.id)).orderBy(desc(databaseVolume.retiredAt));
  const restores = await ctx.db.select().from(databaseRestore).where(eq(databaseRestore.databaseId, d.id)).orderBy(desc(databaseRestore.createdAt)).limit(5);
  return {
    ...databaseView(d, status ?? null),
    attachedBy: await attachmentsOf(ctx, d),
    previousVolumes: volumes.map((v) => ({ name: v.name, retiredAt: v.retiredAt.toISOString(), removing: v.removeRequestedAt !== null })),
    restores: restores.map(restoreView),
  };
}

/** A database's backups, newest first (`?limit=`, at most MAX_LIST_ROWS). */
export async function listBackups({ ctx, envId, name, limit }: { ctx: Ctx; envId: string; name: string; limit?: number }): Promise<BackupView[]> {
  const d = await findDatabase(ctx, envId, name, "backup.read");
  const rows = await ctx.db
    .select()
    .from(backup)
    .where(eq(backup.databaseId, d.id))
    .orderBy(desc(backup.createdAt))
    .limit(Math.min(limit ?? MAX_LIST_ROWS, MAX_LIST_ROWS));
  return rows.map(backupView);
}

export async function findBackup(ctx: Ctx, d: DatabaseRow, id: string): Promise<BackupRow> {
  const [row] = /^[0-9a-f-]{36}$/i.test(id) ? await ctx.db.select().from(backup).where(and(eq(backup.id, id), eq(backup.databaseId, d.id))) : [];
  if (!row) throw new LevelrailError("not_found", "backup not found");
  return row;
}

export async function getBackup({ ctx, envId, name, id }: { ctx: Ctx; envId: string; name: string; id: string }): Promise<BackupView> {
  return backupView(await findBackup(ctx, await findDatabase(ctx, envId, name, "backup.read"), id));
}

/** Whether a restore or removal of the database is still in flight. */
export const runningRestore = (ctx: Pick<Ctx, "db">, databaseId: string) =>
  ctx.db
    .select({ id: databaseRestore.id })
    .from(databaseRestore)
    .where(and(eq(databaseRestore.databaseId, databaseId), eq(databaseRestore.status, "running"), isNull(databaseRestore.finishedAt)));
