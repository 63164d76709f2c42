import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { user } from "../auth/table";
import { organization } from "../orgs/table";

/**
 * An invitation to join an organization with a role: a single-use link valid for a week. Only the
 * SHA-256 of its token is stored; the link is mailed or shown once. It is pending until it is
 * accepted, revoked or past `expiresAt`; a used or revoked invitation keeps its row (history).
 * `role` is text (`owner`, `admin`, `developer`, `viewer`), validated by the verbs.
 */
export const invitation = pgTable(
  "invitation",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    /** Lowercased. */
    email: text("email").notNull(),
    role: text("role").notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: text("invited_by").references(() => user.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedBy: text("accepted_by").references(() => user.id, { onDelete: "set null" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("invitation_token_hash").on(t.tokenHash), index("invitation_org_email").on(t.orgId, t.email)],
);
