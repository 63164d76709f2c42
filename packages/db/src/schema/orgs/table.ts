import { sql } from "drizzle-orm";
import { type AnyPgColumn, boolean, check, index, integer, pgTable, primaryKey, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { ROLES } from "@levelrail/spec/roles";
import { user } from "../auth/table";

export const organization = pgTable("organization", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  /** Members must have a second factor (TOTP) to use this organization's pages and API through a session. */
  require2fa: boolean("require_2fa").notNull().default(false),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const membership = pgTable(
  "membership",
  {
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => user.id, { onDelete: "cascade" }),
    /** owner, admin, developer or viewer (docs/operating/teams-and-sso.md#roles); the old `member` rows became `developer`. */
    role: text("role", { enum: ROLES }).notNull().default("developer"),
    /** Set: the role holds on this project only, and the member sees nothing else of the organization. */
    projectId: uuid("project_id").references((): AnyPgColumn => project.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId] }),
    index("membership_user").on(t.userId),
    check("membership_role", sql`${t.role} in ('owner', 'admin', 'developer', 'viewer')`),
    // A role on one project is never ownership of the organization.
    check("membership_project_role", sql`${t.projectId} is null or ${t.role} <> 'owner'`),
  ],
);

export const project = pgTable(
  "project",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("project_org_name").on(t.orgId, t.name)],
);

export const environment = pgTable(
  "environment",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    projectId: uuid("project_id").notNull().references(() => project.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("environment_project_name").on(t.projectId, t.name)],
);

/**
 * An organization's own quotas, set by the installation's administrator (`levelrail quota set`);
 * a null column, or no row, means the installation-wide default.
 */
export const orgQuota = pgTable("org_quota", {
  orgId: uuid("org_id").primaryKey().references(() => organization.id, { onDelete: "cascade" }),
  apps: integer("apps"),
  services: integer("services"),
  databases: integer("databases"),
  domains: integer("domains"),
  /** Notification channels (webhook and email). */
  channels: integer("channels"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
