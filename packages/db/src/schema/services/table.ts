import { boolean, foreignKey, index, integer, jsonb, pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import type { DeployStep, Hooks, Phase, Placement, ReplicaView, PromotedFrom, ReleaseKind, ReleaseOutcome, ReleaseSpec, Resources, Strategy } from "@levelrail/spec/service";
import { environment, organization } from "../orgs/table";

export const app = pgTable(
  "app",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    /** An app lives in one environment; its name is unique there (staging and production both have `shop`). */
    environmentId: uuid("environment_id").notNull().references(() => environment.id, { onDelete: "restrict" }),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("app_environment_name").on(t.environmentId, t.name),
    // Every tenant query and the apps quota count filter by organization.
    index("app_org").on(t.orgId),
    // The target of service's (app_id, environment_id) key: a service's app is in the service's environment.
    unique("app_id_environment").on(t.id, t.environmentId),
  ],
);

/**
 * Desired state of a service, as the operator edits it. What actually runs
 * is decided by `currentReleaseId` (a Deploy snapshots this row into a
 * release); what Docker shows lives in `service_status`.
 */
export const service = pgTable(
  "service",
  {
  id: uuid("id").primaryKey().defaultRandom(),
  orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
  appId: uuid("app_id").notNull().references(() => app.id, { onDelete: "restrict" }),
  environmentId: uuid("environment_id").notNull().references(() => environment.id, { onDelete: "restrict" }),
  /** Unique within its environment: the same service runs in staging and in production. */
  name: text("name").notNull(),
  image: text("image").notNull(),
  port: integer("port").notNull(),
  healthPath: text("health_path").notNull(),
  readyBudgetSeconds: integer("ready_budget_seconds").notNull(),
  strategy: text("strategy").$type<Strategy>().notNull(),
  env: jsonb("env").$type<Record<string, string>>().notNull(),
  databaseEnv: jsonb("database_env").$type<Record<string, { from: string }>>().notNull(),
  storageTargetId: uuid("storage_target_id"),
  registryCredentialId: uuid("registry_credential_id"),
  hooks: jsonb("hooks").$type<Hooks>().notNull(),
  domains: jsonb("domains").$type<string[]>().notNull(),
  /** Memory, CPU and process limits and added capabilities; `{}` (every default) for services made before limits existed. */
  resources: jsonb("resources").$type<Partial<Resources>>().notNull().default({}),
  /** Tasks of each release on a swarm (docs/operating/services-and-deploys.md#replicas-and-placement); 1 on one engine, and for services made before swarms. */
  replicas: integer("replicas").notNull().default(1),
  /** Node label → value the service's tasks require on a swarm; `{}`: any node. */
  placement: jsonb("placement").$type<Placement>().notNull().default({}),
  restartNonce: text("restart_nonce").notNull().default(""),
  currentReleaseId: uuid("current_release_id"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("service_environment_name").on(t.environmentId, t.name),
    // Every tenant query and the services and domains quota counts filter by organization.
    index("service_org").on(t.orgId),
    foreignKey({ name: "service_app_environment", columns: [t.appId, t.environmentId], foreignColumns: [app.id, app.environmentId] }),
  ],
);

/** One Deploy, Restart or rollback: an immutable snapshot the worker converges to. */
export const release = pgTable("release", {
  id: uuid("id").primaryKey().defaultRandom(),
  orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
  serviceId: uuid("service_id").notNull().references(() => service.id, { onDelete: "cascade" }),
  kind: text("kind").$type<ReleaseKind>().notNull(),
  spec: jsonb("spec").$type<ReleaseSpec>().notNull(),
  restartNonce: text("restart_nonce").notNull(),
  /** Resolved once by the worker (pull policy), then the release converges to it. */
  imageId: text("image_id"),
  /** When that image was built (its `org.opencontainers.image.created` label, else the engine's created time): lead time starts here. */
  imageCreatedAt: timestamp("image_created_at", { withTimezone: true }),
  createdBy: text("created_by").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  startedAt: timestamp("started_at", { withTimezone: true }),
  finishedAt: timestamp("finished_at", { withTimezone: true }),
  outcome: text("outcome").$type<ReleaseOutcome>().notNull().default("pending"),
  message: text("message").notNull().default(""),
  container: text("container"),
  /** HMAC of the resolved configuration (image id, spec, every env value); never plaintext. */
  fingerprint: text("fingerprint"),
  /** Per-key HMACs of the resolved environment, to name the keys that changed since. */
  envFingerprints: jsonb("env_fingerprints").$type<Record<string, string>>(),
  /** A promotion's origin: the environment (and its release) whose exact image id this release runs. */
  promotedFrom: jsonb("promoted_from").$type<PromotedFrom>(),
});

/** What the worker last observed for a service. */
export const serviceStatus = pgTable("service_status", {
  serviceId: uuid("service_id").primaryKey().references(() => service.id, { onDelete: "cascade" }),
  phase: text("phase").$type<Phase>().notNull(),
  image: text("image"),
  activeContainer: text("active_container"),
  message: text("message").notNull().default(""),
  /** Where a deploy is: pulling, pre-deploy, starting, probing, post-deploy, cutover (null when idle). */
  step: text("step").$type<DeployStep>(),
  /** The live container keeps exiting and the engine keeps restarting it (its restart policy's job, not a deploy). */
  crashLooping: boolean("crash_looping").notNull().default(false),
  /** How often the engine restarted the live container. */
  restarts: integer("restarts").notNull().default(0),
  /** How its last run ended: exit code and ISO time; null when it never exited. */
  lastExit: jsonb("last_exit").$type<{ code: number | null; at: string | null }>(),
  /** On a swarm: the active release's tasks and their nodes; `[]` on one engine. */
  replicas: jsonb("replicas").$type<ReplicaView[]>().notNull().default([]),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
