import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, text, timestamp, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { BackupSchedule, BackupStatus, BackupStep, BackupVerification, DatabaseEngineId, DatabasePhase, InventoryRecord, RestoreMode, RestoreStatus } from "@levelrail/spec/database";
import { backupTarget } from "../config/table";
import { environment, organization } from "../orgs/table";

/**
 * A managed database as the operator asked for it (desired state). What runs is decided by the
 * database controller from this row; what it observed lives in `database_status`.
 */
export const managedDatabase = pgTable(
  "managed_database",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    environmentId: uuid("environment_id").notNull().references(() => environment.id, { onDelete: "restrict" }),
    /** Unique within its environment; also the network alias attached services reach it by. */
    name: text("name").notNull(),
    engine: text("engine").$type<DatabaseEngineId>().notNull(),
    version: text("version").notNull(),
    image: text("image").notNull(),
    /** The login the product and attached services use; the password is generated and only stored sealed. */
    username: text("username").notNull(),
    passwordSealed: text("password_sealed").notNull(),
    /** The engine volume the data lives on now (a restore that replaces the data switches it). */
    volume: text("volume").notNull(),
    backupSchedule: jsonb("backup_schedule").$type<BackupSchedule>(),
    /** Node labels its server's node must carry (on a swarm; `{}`: the manager's engine). Fixed once made. */
    placement: jsonb("placement").$type<Record<string, string>>().notNull().default({}),
    /**
     * The swarm node a placed database's server and volume are on: chosen once, among the nodes its
     * placement selects, by the worker (a task that moved to another node would find no data there).
     */
    nodeId: text("node_id"),
    /** The schedule's target, as a key: a target a schedule uses cannot be deleted. */
    scheduleTargetId: uuid("schedule_target_id").references(() => backupTarget.id, { onDelete: "restrict" }),
    /** Scheduled runs are due after this instant (when the schedule was last set), never before. */
    scheduleSince: timestamp("schedule_since", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("managed_database_environment_name").on(t.environmentId, t.name), index("managed_database_org").on(t.orgId)],
);

/** What the database controller last observed. */
export const databaseStatus = pgTable("database_status", {
  databaseId: uuid("database_id").primaryKey().references(() => managedDatabase.id, { onDelete: "cascade" }),
  phase: text("phase").$type<DatabasePhase>().notNull(),
  message: text("message").notNull().default(""),
  container: text("container"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** One backup run: requested (now or by the schedule), dumped, uploaded, verified by a restore. */
export const backup = pgTable(
  "backup",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    databaseId: uuid("database_id").notNull().references(() => managedDatabase.id, { onDelete: "cascade" }),
    targetId: uuid("target_id").references(() => backupTarget.id, { onDelete: "set null" }),
    status: text("status").$type<BackupStatus>().notNull(),
    /** Where a running backup is (dumping, verifying); null when it is not running. */
    step: text("step").$type<BackupStep>(),
    message: text("message").notNull().default(""),
    /** The schedule's due time this run is for (unique: a run is never repeated); null for "back up now". */
    scheduledFor: timestamp("scheduled_for", { withTimezone: true }),
    /** The worker process running it; another process finding it running marks it interrupted. */
    runner: text("runner"),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    sizeBytes: bigint("size_bytes", { mode: "number" }),
    sha256: text("sha256"),
    objectKey: text("object_key"),
    /** What the snapshot the dump was taken from held: every table's rows and the schema. */
    inventory: jsonb("inventory").$type<InventoryRecord>(),
    verification: jsonb("verification").$type<BackupVerification>(),
    /** Set by "verify again"; the worker clears it when it starts. */
    verifyRequestedAt: timestamp("verify_requested_at", { withTimezone: true }),
    /** Removed from the target by the keep rule (the row stays as history). */
    prunedAt: timestamp("pruned_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("backup_database_created").on(t.databaseId, t.createdAt),
    uniqueIndex("backup_database_scheduled").on(t.databaseId, t.scheduledFor).where(sql`${t.scheduledFor} is not null`),
  ],
);

/** A restore of a backup into a fresh volume: of a new database (`into`) or replacing one's data. */
export const databaseRestore = pgTable(
  "database_restore",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    databaseId: uuid("database_id").notNull().references(() => managedDatabase.id, { onDelete: "cascade" }),
    backupId: uuid("backup_id").references(() => backup.id, { onDelete: "set null" }),
    mode: text("mode").$type<RestoreMode>().notNull(),
    status: text("status").$type<RestoreStatus>().notNull(),
    message: text("message").notNull().default(""),
    /** The fresh volume the backup is restored into. */
    volume: text("volume").notNull(),
    runner: text("runner"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("database_restore_database").on(t.databaseId, t.createdAt)],
);

/** A volume a database used before a restore replaced its data: kept until an operator removes it. */
export const databaseVolume = pgTable("database_volume", {
  name: text("name").primaryKey(),
  orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
  databaseId: uuid("database_id").notNull().references(() => managedDatabase.id, { onDelete: "cascade" }),
  retiredAt: timestamp("retired_at", { withTimezone: true }).notNull().defaultNow(),
  /** Set when an operator asked for it to go; the worker removes the engine volume, then the row. */
  removeRequestedAt: timestamp("remove_requested_at", { withTimezone: true }),
});

/**
 * What is left to do for a database that was deleted (by itself or with its environment): its
 * containers go, and its volumes too when the operator asked for it. No key to the deleted row.
 */
export const databaseTeardown = pgTable("database_teardown", {
  databaseId: uuid("database_id").primaryKey(),
  dropData: boolean("drop_data").notNull().default(false),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
