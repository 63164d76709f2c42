import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** Who made a change: a signed-in user, an API token, the operator CLI on the host, the worker on its own (a schedule), or a git provider's webhook (`webhook:github`). */
export const AUDIT_ACTOR_TYPES = ["user", "token", "cli", "worker", "webhook"] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * The audit log: one row per change, append-only. A trigger (migration 0018, by hand) refuses every
 * UPDATE and TRUNCATE, and every DELETE except the retention job's: a DELETE passes only inside a
 * transaction that set `levelrail.audit_retention` to a cutoff time, and only for rows older than it.
 * No foreign keys: an entry outlives the organization, user or resource it names.
 */
export const auditEntry = pgTable(
  "audit_entry",
  {
    /** Insertion order: the page cursor (newest first). */
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** Null for a change of no organization's (an operator's own API token). */
    orgId: uuid("org_id"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    actorType: text("actor_type", { enum: ["user", "token", "cli", "worker", "webhook"] }).notNull(),
    /** The user's id, the token's id, the CLI's operator (or null), the worker's runner id. */
    actorId: text("actor_id"),
    /** An email, a token's name and its owner, `cli`, `worker`. */
    actorName: text("actor_name").notNull(),
    /** `<target type>.<verb>`: `service.deploy`, `secret.set`. */
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id"),
    targetName: text("target_name"),
    /** Names of the fields the change set (never a value). */
    fields: text("fields").array().notNull().default([]),
    /** The caller's address as the web app resolved it (`x-levelrail-client-ip`); null for the CLI and the worker. */
    sourceIp: text("source_ip"),
  },
  (t) => [
    index("audit_entry_org_id").on(t.orgId, t.id.desc()),
    index("audit_entry_org_action").on(t.orgId, t.action, t.id.desc()),
    index("audit_entry_org_actor").on(t.orgId, t.actorId, t.id.desc()),
    index("audit_entry_org_target").on(t.orgId, t.targetId, t.id.desc()),
    index("audit_entry_at").on(t.at),
  ],
);

export type AuditEntryRow = typeof auditEntry.$inferSelect;

/** `LEVELRAIL_AUDIT_RETENTION_DAYS`' default and bounds (packages/config/src/env.ts): entries are kept a year. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
export const MAX_AUDIT_RETENTION_DAYS = 36_500;

/**
 * How long audit entries are kept: one row, written by the migration step as the owner of the tables
 * from `LEVELRAIL_AUDIT_RETENTION_DAYS` (packages/db/src/migrate.ts), read by `audit_entry_prune()`
 * (migration 0032, by hand), which computes its cutoff from it. The panel's own database role has no
 * privilege on it (packages/db/src/panel-role.ts), so a compromised panel cannot shorten the retention.
 */
export const auditPolicy = pgTable(
  "audit_policy",
  {
    /** Always true: the table holds one row. */
    id: boolean("id").primaryKey().default(true),
    retentionDays: integer("retention_days").notNull(),
  },
  (t) => [check("audit_policy_one_row", sql`${t.id}`), check("audit_policy_retention_days", sql`${t.retentionDays} between 1 and 36500`)],
);
