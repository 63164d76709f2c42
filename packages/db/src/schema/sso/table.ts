import { boolean, jsonb, pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { ROLES } from "@levelrail/spec/roles";
import { organization } from "../orgs/table";

/**
 * An organization's single sign-on: one OpenID Connect connection (issuer, client) per organization.
 * The client secret is sealed with the installation's keyring like every other secret here; the
 * group→role map names the roles a groups claim gives. `domain`: the email domain the owner names
 * for the connection, as written and never proven, so it routes nobody and reserves nothing (not
 * unique): "Sign in with SSO" by work address and the sign-in gates go by the proven email domains
 * below only (docs/operating/teams-and-sso.md).
 */
export const ssoConnection = pgTable("sso_connection", {
  orgId: uuid("org_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  issuer: text("issuer").notNull(),
  clientId: text("client_id").notNull(),
  clientSecretSealed: text("client_secret_sealed").notNull(),
  domain: text("domain").notNull(),
  defaultRole: text("default_role", { enum: ROLES }).notNull().default("viewer"),
  groupsClaim: text("groups_claim"),
  groupRoles: jsonb("group_roles").$type<Record<string, (typeof ROLES)[number]>>().notNull().default({}),
  /** Members must sign in through this connection to reach the organization with a session. */
  requireSso: boolean("require_sso").notNull().default(false),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * An email domain an organization's single sign-on may sign in and link users of. The connection
 * accepts an email only when the organization has proven it owns its domain: the same TXT record
 * as a service's domain (`domain_proof` holds the proof; the worker checks it and keeps checking).
 * Lower case.
 */
export const ssoEmailDomain = pgTable(
  "sso_email_domain",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("sso_email_domain_org_domain").on(t.orgId, t.domain)],
);
