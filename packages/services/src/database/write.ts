import { randomBytes } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { notifyDesired } from "@levelrail/db/notify";
import { backupTarget } from "@levelrail/db/schema/config";
import { databaseStatus, databaseTeardown, databaseVolume, managedDatabase } from "@levelrail/db/schema/databases";
import { service } from "@levelrail/db/schema/services";
import { type BackupSchedule, databaseInput, databasePatch, volumeRemoval } from "@levelrail/spec/database";
import { LevelrailError } from "@levelrail/spec/errors";
import { databaseKey } from "@levelrail/spec/keys";
import { databaseVolumeName } from "@levelrail/spec/naming";
import { type Ctx, parse, scope, uniquely } from "../context";
import { assertQuota } from "../org/quota";
import { refuseOnOneEngine } from "../node/engine";
import { findEnvironment } from "../project/list";
import { refuseOthersBuiltImage } from "../service/built-image";
import { type DatabaseRow, type DatabaseView, attachmentsOf, databaseView, findDatabase, getDatabase, shortNameOf } from "./view";
import { audit, fieldNames } from "../audit/record";

type Tx = Parameters<Parameters<Ctx["db"]["transaction"]>[0]>[0];

/** The login every managed PostgreSQL gets (the official image's default superuser). */
const DEFAULT_USER = "postgres";
/** URL-safe: it goes into connection URLs as it is. */
export const generatePassword = () => randomBytes(24).toString("base64url");

/** A schedule's target must be a backup target of the database's organization: 400 naming the field otherwise. */
async function checkSchedule(ctx: Ctx, orgId: string, schedule: BackupSchedule | null | undefined) {
  if (!schedule) return;
  const [t] = await ctx.db.select({ id: backupTarget.id }).from(backupTarget).where(and(eq(backupTarget.id, schedule.targetId), eq(backupTarget.orgId, orgId)));
  if (!t) throw new LevelrailError("invalid_input", "backupSchedule.targetId: no such backup target in this organization", { field: "backupSchedule.targetId" });
}

export interface NewDatabase {
  orgId: string;
  environmentId: string;
  name: string;
  engine: "postgres";
  version: string;
  image: string;
  backupSchedule: BackupSchedule | null;
  /** Node labels its server's node must carry (a swarm only); absent: `{}`, the manager's engine. */
  placement?: Record<string, string>;
}

/** Inserts a database (its status pending, quota checked, the worker woken) inside `tx`. */
export async function insertDatabase(ctx: Ctx, tx: Tx, d: NewDatabase): Promise<DatabaseRow> {
  await assertQuota(ctx, tx, d.orgId, { databases: 1 });
  const [clash] = await tx.select({ id: service.id }).from(service).where(and(eq(service.environmentId, d.environmentId), eq(service.name, d.name)));
  // Inside an app network a database answers to its name: a service of that name would be shadowed.
  if (clash) throw new LevelrailError("conflict", `name: service ${d.name} exists in this environment; a database needs a name of its own`, { field: "name" });
  const id = crypto.randomUUID();
  const [row] = await tx
    .insert(managedDatabase)
    .values({
      ...d,
      id,
      username: DEFAULT_USER,
      passwordSealed: ctx.kit.keyring.seal(generatePassword()),
      volume: databaseVolumeName(shortNameOf(ctx), id),
      scheduleTargetId: d.backupSchedule?.targetId ?? null,
      scheduleSince: d.backupSchedule ? new Date() : null,
    })
    .returning();
  await tx.insert(databaseStatus).values({ databaseId: id, phase: "pending", message: "waiting for the worker" });
  await notifyDesired(tx, databaseKey(id));
  return row!;
}

/** POST …/databases: a PostgreSQL server in the environment; its image defaults to the official `postgres:<version>`. */
export async function createDatabase({ ctx, envId, input }: { ctx: Ctx; envId: string; input: unknown }): Promise<DatabaseView> {
  const env = await findEnvironment(ctx, envId, "database.write");
  const spec = parse(databaseInput, input);
  await checkSchedule(ctx, env.orgId, spec.backupSchedule);
  await refuseOthersBuiltImage(ctx, env.orgId, spec.image);
  // A placement names node labels: one engine has no nodes to place on (409 naming the field).
  await refuseOnOneEngine(ctx, { placement: spec.placement });
  const row = await uniquely("name", `database ${spec.name}`, () =>
    ctx.db.transaction(async (tx) => {
      const r = await insertDatabase(ctx, tx, {
        orgId: env.orgId,
        environmentId: env.id,
        name: spec.name,
        engine: spec.engine,
        version: spec.version,
        image: spec.image ?? `postgres:${spec.version}`,
        backupSchedule: spec.backupSchedule ?? null,
        placement: spec.placement ?? {},
      });
      await audit(ctx, tx, { orgId: env.orgId, action: "database.create", target: { type: "database", id: r.id, name: spec.name }, fields: fieldNames(spec) });
      return r;
    }),
  );
  return databaseView(row, { phase: "pending", message: "waiting for the worker" });
}

/** PATCH …/databases/{db}: the backup schedule (null removes it). Runs are due from now on. */
export async function patchDatabase({ ctx, envId, name, input }: { ctx: Ctx; envId: string; name: string; input: unknown }): Promise<DatabaseView> {
  const d = await findDatabase(ctx, envId, name, "database.write");
  const { backupSchedule } = parse(databasePatch, input);
  if (backupSchedule === undefined) return getDatabase({ ctx, envId, name });
  await checkSchedule(ctx, d.orgId, backupSchedule);
  const row = await ctx.db.transaction(async (tx) => {
    const [r] = await tx
      .update(managedDatabase)
      .set({ backupSchedule, scheduleTargetId: backupSchedule?.targetId ?? null, scheduleSince: backupSchedule ? new Date() : null, updatedAt: new Date() })
      .where(and(eq(managedDatabase.id, d.id), inArray(managedDatabase.orgId, scope(ctx))))
      .returning();
    await notifyDesired(tx, databaseKey(d.id));
    await audit(ctx, tx, { orgId: d.orgId, action: "database.update", target: { type: "database", id: d.id, name: d.name }, fields: ["backupSchedule"] });
    return r!;
  });
  const [status] = await ctx.db.select().from(databaseStatus).where(eq(databaseStatus.databaseId, d.id));
  return databaseView(row, status ?? null);
}

/** Deletes the rows and leaves the worker a teardown: containers go; volumes only with `dropData`. */
export async function tearDownDatabases(tx: Tx, ids: string[], dropData: boolean): Promise<void> {
  if (!ids.length) return;
  await tx.insert(databaseTeardown).values(ids.map((databaseId) => ({ databaseId, dropData }))).onConflictDoNothing();
  await tx.delete(managedDatabase).where(inArray(managedDatabase.id, ids));
  for (const id of ids) await notifyDesired(tx, databaseKey(id));
}

const isPinned = (d: DatabaseRow) => Object.keys(d.placement ?? {}).length > 0;
/** Why the panel cannot remove a placed database's volume: the manager reaches only its own engine's volumes. */
const ON_ITS_NODE = (volume: string) => `volume ${volume} of a database pinned to a node is on that node's engine, which the panel cannot reach (docker volume rm ${volume} on that node)`;

/** DELETE …/databases/{db}: refused while a service attaches it; its data is kept unless `dropData`. */
export async function deleteDatabase({ ctx, envId, name, dropData }: { ctx: Ctx; envId: string; name: string; dropData: boolean }): Promise<void> {
  const d = await findDatabase(ctx, envId, name, "database.write");
  if (dropData && isPinned(d)) throw new LevelrailError("conflict", `dropData: ${ON_ITS_NODE(d.volume)}; delete the database without dropData, then remove the volume there`, { field: "dropData" });
  const users = await attachmentsOf(ctx, d);
  if (users.length) {
    const names = [...new Set(users.map((u) => u.service))].join(", ");
    throw new LevelrailError("conflict", `database ${name} is attached to ${names}; remove it from their databaseEnv first`);
  }
  await ctx.db.transaction(async (tx) => {
    await tearDownDatabases(tx, [d.id], dropData);
    await audit(ctx, tx, { orgId: d.orgId, action: "database.delete", target: { type: "database", id: d.id, name: d.name }, fields: dropData ? ["dropData"] : [] });
  });
}

/** DELETE …/databases/{db}/volumes/{volume}: a kept previous volume goes, once its name is typed in `confirm`. */
export async function removeVolume({ ctx, envId, name, volume, input }: { ctx: Ctx; envId: string; name: string; volume: string; input: unknown }): Promise<void> {
  const d = await findDatabase(ctx, envId, name, "database.write");
  const { confirm } = parse(volumeRemoval, input);
  if (isPinned(d)) throw new LevelrailError("conflict", `volume: ${ON_ITS_NODE(volume)}; remove it there`, { field: "volume" });
  const [v] = await ctx.db.select().from(databaseVolume).where(and(eq(databaseVolume.name, volume), eq(databaseVolume.databaseId, d.id)));
  if (!v) throw new LevelrailError("not_found", `volume ${volume} is not a kept volume of database ${name}`);
  if (confirm !== volume) throw new LevelrailError("invalid_input", "confirm: type the volume's name exactly to remove it", { field: "confirm" });
  await ctx.db.transaction(async (tx) => {
    await tx.update(databaseVolume).set({ removeRequestedAt: new Date() }).where(eq(databaseVolume.name, volume));
    await notifyDesired(tx, databaseKey(d.id));
    await audit(ctx, tx, { orgId: d.orgId, action: "database.volume.remove", target: { type: "database", id: d.id, name: d.name }, fields: ["volume"] });
  });
}

/** Wakes the databases of an environment named in attachments that changed (their networks follow who attaches them). */
export async function wakeDatabases(tx: Tx, environmentId: string, ...attachments: (Record<string, { from: string }> | undefined)[]): Promise<void> {
  const names = [...new Set(attachments.flatMap((a) => Object.values(a ?? {}).map((v) => v.from)))];
  if (!names.length) return;
  const rows = await tx.select({ id: managedDatabase.id }).from(managedDatabase).where(and(eq(managedDatabase.environmentId, environmentId), inArray(managedDatabase.name, names)));
  for (const r of rows) await notifyDesired(tx, databaseKey(r.id));
}
