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
