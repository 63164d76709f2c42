import { and, asc, desc, eq, inArray, isNotNull, isNull, max, or, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { backupTarget } from "@levelrail/db/schema/config";
import { backup, databaseRestore, databaseStatus, databaseTeardown, databaseVolume, managedDatabase } from "@levelrail/db/schema/databases";
import { service } from "@levelrail/db/schema/services";
import type { Keyring } from "@levelrail/secrets";
import { type Fence, assertLeads, leads } from "./fence";
import { emitBackup } from "./notifications/emit";
import { recordAudit, workerSource } from "@levelrail/services/audit/record";
import type { AttachmentStore, BackupRecord, DatabaseStore } from "./controllers/database/store";

type BackupRow = typeof backup.$inferSelect;
const record = (b: BackupRow): BackupRecord => ({
  id: b.id,
  orgId: b.orgId,
  databaseId: b.databaseId,
  targetId: b.targetId,
  status: b.status,
  runner: b.runner,
  scheduledFor: b.scheduledFor,
  objectKey: b.objectKey,
  sha256: b.sha256,
  inventory: b.inventory,
  verifyRequestedAt: b.verifyRequestedAt,
  prunedAt: b.prunedAt,
  createdAt: b.createdAt,
});

/** A foreign-key or missing-row race (the database was deleted meanwhile) is not an error of the pass. */
const ignoreGone = (err: unknown) => {
  if ((err as { cause?: { code?: string } }).cause?.code !== "23503") throw err;
};

/** Whose a database's and a backup's keys are: the database runner shares its slots fairly by organization. */
export interface DatabaseTenants {
  orgOfDatabase(id: string): Promise<string | null>;
  orgOfBackup(id: string): Promise<string | null>;
}

/**
 * The PostgreSQL side of the database controller. Passwords and secret keys are opened in memory only.
 * With a `fence`, the writes of work in flight (status, restores, backups, a switch of volume) land
 * only while that worker leads; otherwise they change nothing and throw `LostLeadError`.
 */
export function pgDatabaseStore(db: Db, keyring: Keyring, fence?: Fence): DatabaseStore & AttachmentStore & DatabaseTenants {
  /** A fenced write that changed no row: refused if this worker no longer leads (else its row is gone). */
  const landed = async (rows: unknown[]) => {
    if (rows.length === 0) await assertLeads(db, fence);
  };
  return {
    async orgOfDatabase(id) {
      const [d] = await db.select({ orgId: managedDatabase.orgId }).from(managedDatabase).where(eq(managedDatabase.id, id));
      return d?.orgId ?? null;
    },
    async orgOfBackup(id) {
      const [b] = await db.select({ orgId: backup.orgId }).from(backup).where(eq(backup.id, id));
      return b?.orgId ?? null;
    },
    async attachedTo(serviceId) {
      const [s] = await db.select({ appId: service.appId, environmentId: service.environmentId, orgId: service.orgId, databaseEnv: service.databaseEnv }).from(service).where(eq(service.id, serviceId));
      if (!s) return null;
      const names = [...new Set(Object.values(s.databaseEnv).map((v) => v.from))];
      if (!names.length) return { appId: s.appId, databases: [] };
      const dbs = await db
        .select({ id: managedDatabase.id, name: managedDatabase.name, image: managedDatabase.image, volume: managedDatabase.volume, placement: managedDatabase.placement })
        .from(managedDatabase)
        .where(and(eq(managedDatabase.environmentId, s.environmentId), eq(managedDatabase.orgId, s.orgId), inArray(managedDatabase.name, names)));
      return { appId: s.appId, databases: dbs };
    },
    async database(id) {
      const [d] = await db.select().from(managedDatabase).where(eq(managedDatabase.id, id));
      if (!d) return null;
      const apps = await db
        .selectDistinct({ appId: service.appId })
        .from(service)
        .where(
          and(
            eq(service.environmentId, d.environmentId),
            eq(service.orgId, d.orgId),
            sql`exists (select 1 from jsonb_each(${service.databaseEnv}) e where e.value->>'from' = ${d.name})`,
          ),
        );
      const removing = await db
        .select({ name: databaseVolume.name })
        .from(databaseVolume)
        .where(and(eq(databaseVolume.databaseId, id), isNotNull(databaseVolume.removeRequestedAt)));
      const [into] = await db
        .select({ status: databaseRestore.status, message: databaseRestore.message })
        .from(databaseRestore)
        .where(and(eq(databaseRestore.databaseId, id), eq(databaseRestore.mode, "into")))
        .orderBy(desc(databaseRestore.createdAt))
        .limit(1);
      return {
        id: d.id,
        orgId: d.orgId,
        environmentId: d.environmentId,
        name: d.name,
        engine: d.engine,
        version: d.version,
        image: d.image,
        credentials: { user: d.username, password: keyring.open(d.passwordSealed), database: d.name },
        volume: d.volume,
        backupSchedule: d.backupSchedule,
        scheduleSince: d.scheduleSince,
        attachedApps: apps.map((a) => a.appId).sort(),
        volumesToRemove: removing.map((v) => v.name),
        failedInto: into?.status === "failed" ? into.message : null,
        placement: d.placement ?? {},
        nodeId: d.nodeId,
      };
    },
    async databaseIds() {
      const ids = await db.select({ id: managedDatabase.id }).from(managedDatabase);
      const gone = await db.select({ id: databaseTeardown.databaseId }).from(databaseTeardown);
      return [...ids, ...gone].map((r) => r.id);
    },
    async teardown(id) {
      const [t] = await db.select().from(databaseTeardown).where(eq(databaseTeardown.databaseId, id));
      return t ? { dropData: t.dropData } : null;
    },
    async finishTeardown(id) {
      await db.delete(databaseTeardown).where(eq(databaseTeardown.databaseId, id));
    },
    async setStatus(id, phase, message, container) {
      const now = new Date();
      await db
        .insert(databaseStatus)
        .values({ databaseId: id, phase, message, container, updatedAt: now })
        .onConflictDoUpdate({ target: databaseStatus.databaseId, set: { phase, message, container, updatedAt: now }, setWhere: leads(fence) })
        .returning({ id: databaseStatus.databaseId })
        .then(landed, ignoreGone);
    },
    async pinNode(id, nodeId) {
      const rows = await db
        .update(managedDatabase)
        .set({ nodeId })
        .where(and(eq(managedDatabase.id, id), isNull(managedDatabase.nodeId), leads(fence)))
        .returning({ id: managedDatabase.id });
      await landed(rows);
    },
    async pendingRestore(databaseId) {
      const [r] = await db
        .select()
        .from(databaseRestore)
        .where(and(eq(databaseRestore.databaseId, databaseId), eq(databaseRestore.status, "running")))
        .orderBy(asc(databaseRestore.createdAt))
        .limit(1);
      return r ? { id: r.id, databaseId: r.databaseId, backupId: r.backupId, mode: r.mode, volume: r.volume, runner: r.runner } : null;
    },
    async updateRestore(id, p) {
      await db
        .update(databaseRestore)
        .set({
          ...(p.status ? { status: p.status } : {}),
          ...(p.message !== undefined ? { message: p.message } : {}),
          ...(p.runner !== undefined ? { runner: p.runner } : {}),
          ...(p.finished ? { finishedAt: new Date() } : {}),
        })
        .where(and(eq(databaseRestore.id, id), leads(fence)))
        .returning({ id: databaseRestore.id })
        .then(landed);
    },
    async switchVolume(databaseId, orgId, volume, previous) {
      const switched = await db.transaction(async (tx) => {
        const rows = await tx.update(managedDatabase).set({ volume, updatedAt: new Date() }).where(and(eq(managedDatabase.id, databaseId), leads(fence))).returning({ id: managedDatabase.id });
        if (rows.length) await tx.insert(databaseVolume).values({ name: previous, orgId, databaseId }).onConflictDoNothing();
        return rows;
      });
      await landed(switched);
    },
    async volumeRemoved(name) {
      await db.delete(databaseVolume).where(eq(databaseVolume.name, name));
    },
    async backup(id) {
      const [b] = await db.select().from(backup).where(eq(backup.id, id));
      return b ? record(b) : null;
    },
    async updateBackup(id, patch) {
      const where = and(eq(backup.id, id), leads(fence));
      if (patch.status !== "failed" && patch.status !== "unverified") return landed(await db.update(backup).set(patch).where(where).returning({ id: backup.id }));
      // An outcome to report: `backup.failed` / `backup.unverified`, with the change.
      const rows = await db.transaction(async (tx) => {
        const changed = await tx.update(backup).set(patch).where(where).returning({ id: backup.id });
        if (changed.length) await emitBackup(tx, id);
        return changed;
      });
      await landed(rows);
    },
    async openBackups(databaseId) {
      const rows = await db
        .select({ id: backup.id })
        .from(backup)
        .where(and(eq(backup.databaseId, databaseId), or(eq(backup.status, "running"), isNotNull(backup.verifyRequestedAt))));
      return rows.map((r) => r.id);
    },
    async lastScheduledFor(databaseId) {
      const [r] = await db.select({ at: max(backup.scheduledFor) }).from(backup).where(eq(backup.databaseId, databaseId));
      return r?.at ?? null;
    },
    async insertScheduled(d, scheduledFor) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(backup)
          .values({ orgId: d.orgId, databaseId: d.databaseId, targetId: d.targetId, status: "running", step: "queued", message: "scheduled", scheduledFor })
          .onConflictDoNothing()
          .returning({ id: backup.id });
        if (!row) return null;
        // A run the schedule started is the worker's change, recorded with it.
        const [m] = await tx.select({ name: managedDatabase.name }).from(managedDatabase).where(eq(managedDatabase.id, d.databaseId));
        const target = { type: "database", id: d.databaseId, name: m?.name ?? null };
        await recordAudit(tx, workerSource("schedule"), { orgId: d.orgId, action: "backup.create", target, fields: ["scheduledFor"] });
        return row.id;
      });
    },
    async storedBackups(databaseId) {
      const rows = await db
        .select()
        .from(backup)
        .where(and(eq(backup.databaseId, databaseId), inArray(backup.status, ["verified", "unverified"]), isNull(backup.prunedAt), isNotNull(backup.objectKey)))
        .orderBy(desc(backup.createdAt));
      return rows.map((b) => ({ ...record(b), status: b.status as "verified" | "unverified" }));
    },
    async target(orgId, id) {
      const [t] = await db.select().from(backupTarget).where(and(eq(backupTarget.id, id), eq(backupTarget.orgId, orgId)));
      if (!t) return null;
      return { id: t.id, name: t.name, endpoint: t.endpoint, bucket: t.bucket, region: t.region, accessKey: t.accessKey, secretKey: keyring.open(t.secretKeySealed) };
    },
  };
}
