import { pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { organization } from "../orgs/table";
import { service } from "../services/table";

export const ENV_SCOPES = ["organization", "project", "environment"] as const;
export type EnvScope = (typeof ENV_SCOPES)[number];

/** Env vars of one tier: organization, project or environment (a service's own env lives on the service). */
export const envVar = pgTable(
  "env_var",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    scope: text("scope").$type<EnvScope>().notNull(),
    scopeId: uuid("scope_id").notNull(),
    key: text("key").notNull(),
    value: text("value").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("env_var_scope_key").on(t.scope, t.scopeId, t.key)],
);

/** A service's secret: only the sealed value (AES-256-GCM, key version inside) is stored. */
export const secret = pgTable(
  "secret",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id").notNull().references(() => service.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    sealed: text("sealed").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("secret_service_key").on(t.serviceId, t.key)],
);

/** S3-compatible storage; the secret key is write-only. */
export const backupTarget = pgTable("backup_target", {
  id: uuid("id").primaryKey().defaultRandom(),
  orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  endpoint: text("endpoint").notNull(),
  bucket: text("bucket").notNull(),
  region: text("region").notNull(),
  accessKey: text("access_key").notNull(),
  secretKeySealed: text("secret_key_sealed").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** A private registry login; the password is write-only. */
export const registryCredential = pgTable("registry_credential", {
  id: uuid("id").primaryKey().defaultRandom(),
  orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  server: text("server").notNull(),
  username: text("username").notNull(),
  passwordSealed: text("password_sealed").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Per-key HMACs of a resolved environment: names what changed without holding a value. */
export type EnvFingerprints = Record<string, string>;
