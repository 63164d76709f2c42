import { and, eq, inArray } from "drizzle-orm";
import { backupTarget } from "@levelrail/db/schema/config";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { service } from "@levelrail/db/schema/services";
import { backupTargetInput } from "@levelrail/spec/config";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, MAX_LIST_ROWS, bounded, isUuid, orgOf, parse, scope } from "../context";

type Row = typeof backupTarget.$inferSelect;
/** Never the secret key: it is write-only. */
const view = (t: Row) => ({
  id: t.id,
  /** The organization it belongs to: only its databases and services may use it. */
  orgId: t.orgId,
  name: t.name,
  endpoint: t.endpoint,
  bucket: t.bucket,
  region: t.region,
  accessKey: t.accessKey,
  secretKeySet: true,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

export async function listBackupTargets({ ctx }: { ctx: Ctx }) {
  const rows = await ctx.db.select().from(backupTarget).where(inArray(backupTarget.orgId, scope(ctx))).orderBy(backupTarget.name).limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "backup targets", "delete the ones you no longer use").map(view);
}

export async function createBackupTarget({ ctx, input: raw }: { ctx: Ctx; input: unknown }) {
  const { secretKey, orgId, ...fields } = parse(backupTargetInput, raw);
  const [row] = await ctx.db
    .insert(backupTarget)
    .values({ ...fields, orgId: orgOf(ctx, orgId), secretKeySealed: ctx.kit.keyring.seal(secretKey) })
    .returning();
  return view(row!);
}

export async function deleteBackupTarget({ ctx, id }: { ctx: Ctx; id: string }) {
  if (!isUuid(id)) throw new LevelrailError("not_found", "backup target not found");
  await ctx.db.transaction(async (tx) => {
    const users = await tx.select({ name: service.name }).from(service).where(and(eq(service.storageTargetId, id), inArray(service.orgId, scope(ctx))));
    if (users.length) throw new LevelrailError("conflict", `backup target is attached to ${users.map((u) => u.name).join(", ")}; detach it first`);
    const schedules = await tx
      .select({ name: managedDatabase.name })
      .from(managedDatabase)
      .where(and(eq(managedDatabase.scheduleTargetId, id), inArray(managedDatabase.orgId, scope(ctx))));
    if (schedules.length) {
      throw new LevelrailError("conflict", `backup target is used by the backup schedule of database ${schedules.map((d) => d.name).join(", ")}; change that schedule first`);
    }
    const gone = await tx.delete(backupTarget).where(and(eq(backupTarget.id, id), inArray(backupTarget.orgId, scope(ctx)))).returning({ id: backupTarget.id });
    if (!gone.length) throw new LevelrailError("not_found", "backup target not found");
  });
}
