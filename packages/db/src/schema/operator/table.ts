import { pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "../auth/table";
import { environment } from "../orgs/table";

/**
 * What an operator chose in the panel, kept server-side so it follows them across browsers: the
 * environment the header and the dashboard show. Deleting that environment clears the choice (the
 * panel then falls back to the first project's production).
 */
export const operatorPreference = pgTable("operator_preference", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  environmentId: uuid("environment_id").references(() => environment.id, { onDelete: "set null" }),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The installation's administrators: the only ones who change what belongs to the installation
 * rather than to one organization (its nodes; quotas are the host CLI's). The first operator
 * (`levelrail admin create` on an empty installation) is one; `levelrail admin grant --email E`
 * adds another and `levelrail admin revoke --email E` removes one. No organization role makes one.
 */
export const installationAdmin = pgTable("installation_admin", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  grantedAt: timestamp("granted_at", { withTimezone: true }).notNull().defaultNow(),
  /** Who granted it, as the audit log names them (`cli`, or `the first operator`). */
  grantedBy: text("granted_by"),
});
