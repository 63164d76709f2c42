import { and, eq } from "drizzle-orm";
import { notifyDesired } from "@levelrail/db/notify";
import { backupTarget } from "@levelrail/db/schema/config";
import { backup, databaseRestore } from "@levelrail/db/schema/databases";
import { backupRequest, restoreInput } from "@levelrail/spec/database";
import { LevelrailError } from "@levelrail/spec/errors";
import { backupKey, databaseKey } from "@levelrail/spec/keys";
import { databaseVolumeName } from "@levelrail/spec/naming";
import { type Ctx, parse, uniquely } from "../context";
import { type BackupView, type DatabaseView, type RestoreView, backupView, databaseView, findBackup, findDatabase, restoreView, runningRestore, shortNameOf } from "./view";
import { insertDatabase } from "./write";
import { audit, fieldNames } from "../audit/record";

/** POST …/databases/{db}/backups: back up now, to `targetId` or the schedule's target (202 with the backup). */
export async function requestBackup({ ctx, envId, name, input }: { ctx: Ctx; envId: string; name: string; input: unknown }): Promise<BackupView> {
  const d = await findDatabase(ctx, envId, name, "backup.write");
  const { targetId: asked } = parse(backupRequest, input);
  const targetId = asked ?? d.backupSchedule?.targetId;
  if (!targetId) throw new LevelrailError("invalid_input", "targetId: this database has no backup schedule; name the backup target to back up to", { field: "targetId" });
  const [t] = await ctx.db.select({ id: backupTarget.id }).from(backupTarget).where(and(eq(backupTarget.id, targetId), eq(backupTarget.orgId, d.orgId)));
  if (!t) throw new LevelrailError("invalid_input", "targetId: no such backup target in this organization", { field: "targetId" });
  const row = await ctx.db.transaction(async (tx) => {
    const [running] = await tx.select({ id: backup.id }).from(backup).where(and(eq(backup.databaseId, d.id), eq(backup.status, "running")));
    if (running) throw new LevelrailError("conflict", `a backup of ${name} is running already; wait for it to finish`);
    const [r] = await tx.insert(backup).values({ orgId: d.orgId, databaseId: d.id, targetId, status: "running", step: "queued", message: "waiting for the worker" }).returning();
    await notifyDesired(tx, backupKey(r!.id));
    await audit(ctx, tx, { orgId: d.orgId, action: "backup.create", target: { type: "database", id: d.id, name: d.name }, fields: asked ? ["targetId"] : [] });
    return r!;
  });
  return backupView(row);
}

/** Why a backup cannot be read back (restored or verified), or null when its object is there to read. */
function unreadable(b: typeof backup.$inferSelect): string | null {
  if (b.status === "running") return "it is still running";
  if (b.status === "failed" || b.status === "interrupted" || !b.objectKey) return `it ${b.status === "failed" ? "failed" : "was interrupted"}, so there is nothing stored to read`;
  if (b.prunedAt) return "the keep rule removed it from the backup target";
  if (!b.targetId) return "its backup target was deleted";
  return null;
}

/** POST …/backups/{id}/verify: restore that backup again, from the object in storage, and compare. */
export async function requestVerify({ ctx, envId, name, id }: { ctx: Ctx; envId: string; name: string; id: string }): Promise<BackupView> {
  const d = await findDatabase(ctx, envId, name, "backup.write");
  const b = await findBackup(ctx, d, id);
  const why = unreadable(b);
  if (why) throw new LevelrailError("conflict", `backup cannot be verified: ${why}`);
  if (b.verifyRequestedAt) throw new LevelrailError("conflict", "this backup is being verified already");
  const [row] = await ctx.db.transaction(async (tx) => {
    const r = await tx.update(backup).set({ verifyRequestedAt: new Date() }).where(eq(backup.id, b.id)).returning();
    await notifyDesired(tx, backupKey(b.id));
    await audit(ctx, tx, { orgId: d.orgId, action: "backup.verify", target: { type: "backup", id: b.id, name: d.name } });
    return r;
  });
  return backupView(row!);
}

/**
 * POST …/databases/{db}/restore: `{backupId, into}` makes a new database from the backup,
 * `{backupId, replace: true}` restores into a fresh volume and switches the database to it only once
 * that succeeded (the old volume is kept). An unverified backup needs `acceptUnverified: true`.
 */
export async function restoreBackup({ ctx, envId, name, input }: { ctx: Ctx; envId: string; name: string; input: unknown }): Promise<{ restore: RestoreView; database: DatabaseView }> {
  const d = await findDatabase(ctx, envId, name, "database.restore");
  const spec = parse(restoreInput, input);
  const b = await findBackup(ctx, d, spec.backupId).catch(() => {
    throw new LevelrailError("invalid_input", `backupId: no such backup of database ${name}`, { field: "backupId" });
  });
  const why = unreadable(b);
  if (why) throw new LevelrailError("conflict", `backup cannot be restored: ${why}`, { field: "backupId" });
  if (b.status === "unverified" && !spec.acceptUnverified) {
    const reason = b.verification?.differences[0] ?? b.message;
    throw new LevelrailError("conflict", `backup is unverified (${reason}); send acceptUnverified: true to restore it anyway`, { field: "acceptUnverified" });
  }
  if (spec.into !== undefined) {
    const into = spec.into;
    return uniquely("into", `database ${into}`, () =>
      ctx.db.transaction(async (tx) => {
        const created = await insertDatabase(ctx, tx, {
          orgId: d.orgId,
          environmentId: d.environmentId,
          name: into,
          engine: d.engine,
          version: d.version,
          image: d.image,
          backupSchedule: null,
        }).catch((err: unknown) => {
          if (err instanceof LevelrailError && err.field === "name") throw new LevelrailError(err.code, err.message.replace(/^name:/, "into:"), { field: "into" });
          throw err;
        });
        const [r] = await tx
          .insert(databaseRestore)
          .values({ orgId: d.orgId, databaseId: created.id, backupId: b.id, mode: "into", status: "running", message: "waiting for the worker", volume: created.volume })
          .returning();
        await audit(ctx, tx, { orgId: d.orgId, action: "backup.restore", target: { type: "database", id: d.id, name: d.name }, fields: fieldNames(spec) });
        return { restore: restoreView(r!), database: databaseView(created, { phase: "pending", message: `restoring backup of ${name}` }) };
      }),
    );
  }
  const [busy] = await runningRestore(ctx, d.id);
  if (busy) throw new LevelrailError("conflict", `a restore of ${name} is running already; wait for it to finish`);
  const restoreId = crypto.randomUUID();
  const r = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(databaseRestore)
      .values({ id: restoreId, orgId: d.orgId, databaseId: d.id, backupId: b.id, mode: "replace", status: "running", message: "waiting for the worker", volume: databaseVolumeName(shortNameOf(ctx), d.id, restoreId) })
      .returning();
    await notifyDesired(tx, databaseKey(d.id));
    await audit(ctx, tx, { orgId: d.orgId, action: "backup.restore", target: { type: "database", id: d.id, name: d.name }, fields: fieldNames(spec) });
    return row!;
  });
  return { restore: restoreView(r), database: databaseView(d, null) };
}
