import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { environment, organization, project } from "../orgs/table";
import { service } from "../services/table";

/**
 * A credential for reaching a git repository (docs/operating/git-builds-and-previews.md#git-sources-and-credentials): a generated SSH deploy key, whose public
 * half is shown to copy, or an HTTPS token. The private key or token is sealed with the installation's
 * keyring, never returned.
 */
export const gitCredential = pgTable(
  "git_credential",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["ssh", "token"] }).notNull(),
    /** `ssh-ed25519 AAAA… levelrail` for a deploy key; null for a token. */
    publicKey: text("public_key"),
    /** The user name sent with a token over HTTPS (`x-access-token`, `oauth2`, a user); null for a key. */
    username: text("username"),
    /**
     * The hosts it may be sent to (`host`: any port; `host:port`: that port only), checked when a
     * source names it and again before each git call. A token with none is sent nowhere; a deploy key
     * with none goes to any host (a server learns only a signature bound to its own session).
     */
    hosts: jsonb("hosts").$type<string[]>().notNull().default([]),
    /** The private key (OpenSSH format) or the token, sealed. */
    sealed: text("sealed").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique("git_credential_org_name").on(t.orgId, t.name)],
);

/**
 * A service's git source: where its image is built from. One per git-sourced service; its id is the
 * `{sourceId}` of the webhook URL, and its webhook secret (sealed) checks each delivery.
 */
export const gitSource = pgTable(
  "git_source",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id")
      .notNull()
      .unique("git_source_service")
      .references(() => service.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** The tracked branch (or tag); a push to it builds and deploys. */
    ref: text("ref").notNull(),
    /** The build context inside the repository, relative (`.` for its root). */
    path: text("path").notNull().default("."),
    dockerfile: text("dockerfile").notNull().default("Dockerfile"),
    credentialId: uuid("credential_id").references(() => gitCredential.id, { onDelete: "restrict" }),
    /** Opt-in environment keys passed as build args (deterministic values only, so the cache holds). */
    buildArgs: jsonb("build_args").$type<string[]>().notNull().default([]),
    /** A Dockerfile stage to build; null builds the last one. */
    target: text("target"),
    webhookSecretSealed: text("webhook_secret_sealed").notNull(),
    /** Poll the ref every so many seconds, for hosts that cannot send webhooks; null: webhooks only. */
    pollIntervalSeconds: integer("poll_interval_seconds"),
    lastPolledAt: timestamp("last_polled_at", { withTimezone: true }),
    /** The commit the ref pointed to when last looked at (a poll or a push). */
    lastSeenCommit: text("last_seen_commit"),
    /** The last failure to reach the repository (a ref or repository that does not exist, a refused key); "" once it is reached. */
    lastError: text("last_error").notNull().default(""),
    /** The provider's API (optional): the preview sweep lists its open requests there, statuses go there. */
    apiProvider: text("api_provider").$type<GitProvider>(),
    /** The API's base URL (`https://api.github.com`, `https://gitea.example.com/api/v1`, `https://gitlab.example.com/api/v4`). */
    apiUrl: text("api_url"),
    /** A token credential sent to that API; null: calls without one (a public repository's list). */
    apiCredentialId: uuid("api_credential_id").references(() => gitCredential.id, { onDelete: "restrict" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("git_source_org").on(t.orgId)],
);

/** Where a webhook or a provider API comes from. */
export type GitProvider = "github" | "gitea" | "gitlab";

export type BuildStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled" | "superseded";
export type BuildTrigger = "push" | "poll" | "manual" | "preview";

/** One build of a git-sourced service, a resource with its own controller (DESIGN: runtimes and builds). */
export const build = pgTable(
  "build",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id")
      .notNull()
      .references(() => service.id, { onDelete: "cascade" }),
    /** The commit built (40 hex); the image is `<short>/<serviceId>:<commit>`. Null until the controller resolves the ref (a build asked for by hand). */
    commit: text("commit"),
    ref: text("ref").notNull(),
    trigger: text("trigger").$type<BuildTrigger>().notNull(),
    status: text("status").$type<BuildStatus>().notNull().default("queued"),
    /** Where a running build is (`fetching`, `building`, `deploying`), or the failing step of a failed one. */
    step: text("step"),
    message: text("message").notNull().default(""),
    /** Deploy the image once built (a push to the tracked branch, a preview); false for a build only. */
    deploy: boolean("deploy").notNull().default(true),
    imageId: text("image_id"),
    image: text("image"),
    /** The worker that runs it; a build whose runner is gone is failed as interrupted. */
    runner: text("runner"),
    cancelRequestedAt: timestamp("cancel_requested_at", { withTimezone: true }),
    /** Who asked: a user, `webhook:<provider>`, `poll`. */
    createdBy: text("created_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("build_service_created").on(t.serviceId, t.createdAt), index("build_org_status").on(t.orgId, t.status)],
);

/** A build's log, line by line (redacted before it is written), kept after the build. */
export const buildLog = pgTable(
  "build_log",
  {
    buildId: uuid("build_id")
      .notNull()
      .references(() => build.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    line: text("line").notNull(),
  },
  (t) => [primaryKey({ columns: [t.buildId, t.seq] })],
);

/** Webhook deliveries seen per source: a delivery repeated by its sender (same id) builds once. */
export const gitDelivery = pgTable(
  "git_delivery",
  {
    sourceId: uuid("source_id")
      .notNull()
      .references(() => gitSource.id, { onDelete: "cascade" }),
    deliveryId: text("delivery_id").notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * An accepted push's place in the branch's history (the forge's `before` and `after` commits); null
     * for anything else. A replayed old push is told apart by them: its `after` is already behind.
     */
    before: text("before"),
    after: text("after"),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.deliveryId] })],
);

/** A project's previews: which environment a pull request's preview is cloned from, and where it routes. */
export type PreviewSettings = { baseEnvironmentId: string; domain: string; max: number; ttlHours: number };

export const previewSettings = pgTable("preview_settings", {
  projectId: uuid("project_id")
    .primaryKey()
    .references(() => project.id, { onDelete: "cascade" }),
  orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
  baseEnvironmentId: uuid("base_environment_id")
    .notNull()
    .references(() => environment.id, { onDelete: "cascade" }),
  /** A base domain the installation owns: the preview of request 12 routes `pr-12.<domain>`. */
  domain: text("domain").notNull(),
  /** At most this many open previews in the project. */
  max: integer("max").notNull().default(5),
  /** A preview not updated for this long is deleted, whatever the provider says. */
  ttlHours: integer("ttl_hours").notNull().default(168),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** One thing of the base environment a preview's clone left out, by service (`""`: the environment itself). */
export type WithheldItem = { service: string; key: string; kind: "secret" | "database" | "storage" | "registry-credential" | "git-credential" };

/** `refused`: the request is open but the project's `max` previews were open already (the message says so). */
export type PreviewState = "open" | "closed" | "refused";

/**
 * A pull or merge request's preview: reconciled state, not an event. The sweep deletes the environment
 * of a preview whose request is closed, merged, or past its time to live. Unique per project, repository
 * and number, so two webhooks racing for one request make one preview.
 */
export const preview = pgTable(
  "preview",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => project.id, { onDelete: "cascade" }),
    /** The repository, normalized (host and path, no credentials, no `.git`). */
    repo: text("repo").notNull(),
    number: integer("number").notNull(),
    /** The preview's environment; null until it is cloned, and again once deleted. */
    environmentId: uuid("environment_id").references(() => environment.id, { onDelete: "set null" }),
    headRef: text("head_ref").notNull(),
    headCommit: text("head_commit").notNull(),
    state: text("state").$type<PreviewState>().notNull().default("open"),
    /** Where the provider takes the outcome (a commit status URL), when it gave one. */
    statusUrl: text("status_url"),
    /** The head commit whose builds were queued for this preview (a new head commit queues again). */
    builtCommit: text("built_commit"),
    /** The last outcome posted to the status URL, `<state> <commit>`; null: none yet. */
    reported: text("reported"),
    message: text("message").notNull().default(""),
    /** The request's head is in another repository than the base (a fork). */
    fork: boolean("fork").notNull().default(false),
    /** The forge does not mark the request's author as a member of the repository (or did not say). */
    outsider: boolean("outsider").notNull().default(false),
    /** A fork's or an outsider's request builds only the head commit a member with deploy rights approved. */
    approvedCommit: text("approved_commit"),
    /** Who approved it (the member's email). */
    approvedBy: text("approved_by"),
    /**
     * What the clone left out of the base environment (a fork's or an outsider's preview gets no secret,
     * credential, storage target or database attachment); null: the environment was cloned in full, or not yet.
     */
    withheld: jsonb("withheld").$type<WithheldItem[]>(),
    /**
     * The environment this preview's own clone made (recorded in the clone's transaction): the only
     * `pr-<n>` an untrusted preview takes over after a crash, and one no other preview takes over.
     * Null once that environment is deleted.
     */
    clonedEnvironmentId: uuid("cloned_environment_id").references(() => environment.id, { onDelete: "set null" }),
    /**
     * The latest time the forge gave an event of the request (`pull_request.updated_at`, GitLab's
     * `object_attributes.updated_at`) among those taken: an event older than it is an earlier delivery
     * sent again, and changes nothing. Null: none said.
     */
    lastEventAt: timestamp("last_event_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    closedAt: timestamp("closed_at", { withTimezone: true }),
  },
  (t) => [unique("preview_project_repo_number").on(t.projectId, t.repo, t.number), index("preview_org").on(t.orgId)],
);
