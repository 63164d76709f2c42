import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type ZodObject, type ZodRawShape, z } from "zod";
import { DEFAULT_SHORT_NAME } from "@levelrail/spec/naming";
import { parseBaseDomains } from "@levelrail/spec/domains";
import { DEFAULT_QUOTAS, type QuotaLimits, quotaLimit } from "@levelrail/spec/quotas";

/**
 * Every environment variable Levelrail reads, with its default, in one place (the README's
 * configuration table lists the same). Nothing here reads `process.env`: each entrypoint picks
 * the variables it uses from `envSchema` and parses them once with `parseEnv`.
 */

const port = z.coerce.number().int().min(1).max(65535);
/** An optional variable set to the empty string (`DOCKER_HOST=`) counts as unset. */
const optional = <T extends z.ZodType<string>>(schema: T) => z.preprocess((v) => (v === "" ? undefined : v), schema.optional());
/** A quota default; set to the empty string it counts as unset (not as 0, which would allow nothing). */
const quotaVar = (fallback: number) => z.preprocess((v) => (v === "" ? undefined : v), quotaLimit.default(fallback));
const address = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], { error: "must be an IP address or a CIDR range" });

const smtpUrlSchema = z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" });

export const DEFAULT_PORT = 3000;
export const DEFAULT_DATA_DIR = ".levelrail";
export const DEFAULT_NETWORK_POOL = "10.201.0.0/16";

export const envSchema = z.object({
  /** A real PostgreSQL server; unset: the embedded one `npm start` runs under the data dir (the launcher then sets it). */
  DATABASE_URL: optional(z.string()),
  /**
   * A file holding the database password, for a DATABASE_URL written without one (`levelrail
   * install` mounts it read-only into the panel's containers, so `docker inspect` never shows it).
   */
  DATABASE_PASSWORD_FILE: optional(z.string()),
  /** Embedded database, generated master key, logs; resolved against the working directory. */
  LEVELRAIL_DATA_DIR: z
    .string()
    .min(1)
    .default(DEFAULT_DATA_DIR)
    .transform((dir) => resolve(dir)),
  /** 32 bytes, base64; unset: generated once into `<data dir>/master.key`. */
  LEVELRAIL_MASTER_KEY: optional(z.string()),
  /** Older master keys (comma-separated base64), still accepted for decryption. */
  LEVELRAIL_PREVIOUS_MASTER_KEYS: optional(z.string()),
  /** Prefix of every Docker object the product creates. */
  LEVELRAIL_SHORT_NAME: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,19}$/, "must be a lowercase DNS label of at most 20 characters")
    .default(DEFAULT_SHORT_NAME),
  /** The Docker engine to drive; unset: the local socket. */
  DOCKER_HOST: optional(z.string()),
  LEVELRAIL_CADDY_ADMIN: z.url().default("http://127.0.0.1:2019"),
  /** The web UI and API. */
  PORT: port.default(DEFAULT_PORT),
  /** Where operators reach the panel; unset: `http://localhost:$PORT` (see `publicUrl`). */
  LEVELRAIL_PUBLIC_URL: optional(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).transform((u) => u.replace(/\/+$/, ""))),
  /** Addresses (or CIDR ranges, comma-separated) whose `X-Forwarded-For` is believed; unset: none. */
  LEVELRAIL_TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((v) => (v ?? "").split(",").map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(address)),
  LEVELRAIL_INGRESS_HTTP_PORT: port.default(80),
  LEVELRAIL_INGRESS_HTTPS_PORT: port.default(443),
  /** `off`: every domain on plain HTTP only (no certificates). */
  LEVELRAIL_INGRESS_TLS: z.enum(["on", "off"]).default("on"),
  /** Where app networks get their /26 subnets (the worker checks the size). */
  LEVELRAIL_NETWORK_POOL: z.string().default(DEFAULT_NETWORK_POOL),
  /** Loopback port of the mesh DNS for Caddy: replica 0 listens on it, replica 1 on the next port. */
  LEVELRAIL_MESH_DNS_PORT: port.default(10053),
  /** Which mesh DNS replica a data plane process is (0 or 1). */
  LEVELRAIL_MESH_DNS_REPLICA: z.coerce.number().int().min(0).max(1).default(0),
  /** How long an old container keeps serving after the switch. */
  LEVELRAIL_DRAIN_MS: z.coerce.number().int().min(0).default(2000),
  /** Timeout of a hook whose service sets none. */
  LEVELRAIL_HOOK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(300),
  /** How long one image pull may take before the worker cancels it and fails the deploy. */
  LEVELRAIL_PULL_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
  /** How long one build of a git source may take (fetch and BuildKit build) before it is stopped on the engine and failed. */
  LEVELRAIL_BUILD_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(86_400).default(1800),
  /** Builds run at once on the worker (shared fairly by organization; one per service at a time). */
  LEVELRAIL_BUILD_SLOTS: z.coerce.number().int().min(1).max(64).default(2),
  /** How many of each service's last succeeded releases keep their image (rollback targets) when pulled images are collected. */
  // At least 2: the live release and the one a rollback goes back to.
  LEVELRAIL_IMAGE_KEEP_RELEASES: z.coerce.number().int().min(2, "must be at least 2 (the live release and its rollback target)").max(100).default(3),
  /** How many days audit log entries are kept; the worker's leader deletes older ones every hour. */
  LEVELRAIL_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
  /** Prometheus metrics on 127.0.0.1. */
  LEVELRAIL_METRICS_PORT: port.default(9464),
  /** How often the worker samples each service's active container (CPU, memory, network). */
  LEVELRAIL_METRICS_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(300).default(10),
  /** Who may create organizations through the API: `owners` (operators who own one already), `anyone`, `none`. */
  LEVELRAIL_ORG_CREATION: z.enum(["owners", "anyone", "none"], { error: "must be owners, anyone or none" }).default("owners"),
  /** The most organizations one operator may own (creating more is a 409). */
  LEVELRAIL_MAX_ORGS_PER_OPERATOR: z.coerce.number().int().min(0).max(10_000).default(5),
  /**
   * Whether webhooks, SMTP servers and backup targets may be loopback, private or link-local
   * addresses (or the panel's own host): the installation's setting, never a tenant's.
   */
  LEVELRAIL_ALLOW_PRIVATE_TARGETS: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .enum(["true", "false"], { error: "must be true or false" })
      .default("false")
      .transform((v) => v === "true"),
  ),
  /**
   * The installation's SMTP server for invitation emails: `smtp://user:password@host:587` (STARTTLS
   * when offered) or `smtps://…:465`, `?from=` for the sender. Unset: invitation links are shown once.
   */
  LEVELRAIL_SMTP_URL: optional(smtpUrlSchema),
  /**
   * A file holding the SMTP URL instead (its content without the trailing newline): `levelrail
   * install` hands it to the web app this way, so `docker inspect` never shows the password.
   */
  LEVELRAIL_SMTP_URL_FILE: optional(z.string()),
  /** Per-organization quotas: the installation defaults (`levelrail quota set` overrides one organization's). */
  LEVELRAIL_QUOTA_APPS: quotaVar(DEFAULT_QUOTAS.apps),
  LEVELRAIL_QUOTA_SERVICES: quotaVar(DEFAULT_QUOTAS.services),
  LEVELRAIL_QUOTA_DATABASES: quotaVar(DEFAULT_QUOTAS.databases),
  LEVELRAIL_QUOTA_DOMAINS: quotaVar(DEFAULT_QUOTAS.domains),
  LEVELRAIL_QUOTA_CHANNELS: quotaVar(DEFAULT_QUOTAS.channels),
  /** Domains the installation owns (comma-separated): their subdomains route without an ownership proof. */
  LEVELRAIL_BASE_DOMAINS: z
    .string()
    .optional()
    .transform(parseBaseDomains)
    .pipe(z.array(z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, "must be comma-separated domain names"))),
  /** `host:port` of the DNS server domain ownership proofs are checked against; unset: the system's resolver. */
  LEVELRAIL_DNS_RESOLVER: optional(z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, "must be host:port")),
  /** How often the worker re-reads every service as a safety net for lost wake-ups. */
  LEVELRAIL_RESYNC_SECONDS: z.coerce.number().int().min(1).default(30),
});

/** `DATABASE_URL` for the entrypoints that cannot run without it (the web app, the worker). */
export const requiredDatabaseUrl = z
  .string({ error: "is required (npm start sets it)" })
  .min(1, "is required (npm start sets it)");

/**
 * The URL to connect with: `DATABASE_URL`, with the password read from `DATABASE_PASSWORD_FILE`
 * when that is set (its content without the trailing newline). A URL that has a password of its
 * own and a password file is refused: one of them would be silently ignored.
 */
export function databaseUrl(env: { DATABASE_URL: string; DATABASE_PASSWORD_FILE?: string | undefined }): string {
  if (!env.DATABASE_PASSWORD_FILE) return env.DATABASE_URL;
  const url = new URL(env.DATABASE_URL);
  if (url.password) throw new Error("DATABASE_URL has a password and DATABASE_PASSWORD_FILE is set: give the password one way only");
  const password = readFileSync(env.DATABASE_PASSWORD_FILE, "utf8").replace(/\r?\n$/, "");
  if (!password) throw new Error(`DATABASE_PASSWORD_FILE (${env.DATABASE_PASSWORD_FILE}) is empty`);
  url.password = encodeURIComponent(password);
  return url.toString();
}

/**
 * The installation's SMTP URL: `LEVELRAIL_SMTP_URL`, or the content of `LEVELRAIL_SMTP_URL_FILE`
 * (without the trailing newline); undefined when neither is set. Both set is refused (one would be
 * silently ignored). An error never repeats the file's content: it holds a password.
 */
export function smtpUrl(env: { LEVELRAIL_SMTP_URL?: string | undefined; LEVELRAIL_SMTP_URL_FILE?: string | undefined }): string | undefined {
  if (!env.LEVELRAIL_SMTP_URL_FILE) return env.LEVELRAIL_SMTP_URL;
  if (env.LEVELRAIL_SMTP_URL) throw new Error("LEVELRAIL_SMTP_URL and LEVELRAIL_SMTP_URL_FILE are both set: give the SMTP URL one way only");
  const text = readFileSync(env.LEVELRAIL_SMTP_URL_FILE, "utf8").replace(/\r?\n$/, "");
  if (!text) return undefined;
  if (!smtpUrlSchema.safeParse(text).success) throw new Error(`LEVELRAIL_SMTP_URL_FILE (${env.LEVELRAIL_SMTP_URL_FILE}) must hold an smtp:// or smtps:// URL`);
  return text;
}

/** The URL operators reach the panel at: `LEVELRAIL_PUBLIC_URL`, else `http://localhost:$PORT`. */
export function publicUrl(env: { PORT: number; LEVELRAIL_PUBLIC_URL?: string | undefined }): string {
  return env.LEVELRAIL_PUBLIC_URL ?? `http://localhost:${env.PORT}`;
}

/** The installation's default quotas (`LEVELRAIL_QUOTA_*`), for the service layer's `Ctx.quotas`. */
export function quotaDefaults(env: {
  LEVELRAIL_QUOTA_APPS: number;
  LEVELRAIL_QUOTA_SERVICES: number;
  LEVELRAIL_QUOTA_DATABASES: number;
  LEVELRAIL_QUOTA_DOMAINS: number;
  LEVELRAIL_QUOTA_CHANNELS: number;
}): QuotaLimits {
  return {
    apps: env.LEVELRAIL_QUOTA_APPS,
    services: env.LEVELRAIL_QUOTA_SERVICES,
    databases: env.LEVELRAIL_QUOTA_DATABASES,
    domains: env.LEVELRAIL_QUOTA_DOMAINS,
    channels: env.LEVELRAIL_QUOTA_CHANNELS,
  };
}

/** The `LEVELRAIL_QUOTA_*` variables, for an entrypoint's `envSchema.pick`. */
export const QUOTA_VARS = {
  LEVELRAIL_QUOTA_APPS: true,
  LEVELRAIL_QUOTA_SERVICES: true,
  LEVELRAIL_QUOTA_DATABASES: true,
  LEVELRAIL_QUOTA_DOMAINS: true,
  LEVELRAIL_QUOTA_CHANNELS: true,
} as const;

/**
 * Parses `source` (an entrypoint passes `process.env`) with `schema`; a bad or missing variable
 * throws one error naming every wrong variable, for `who` ("the worker", "the web app").
 */
export function parseEnv<S extends ZodRawShape>(schema: ZodObject<S>, source: Record<string, string | undefined>, who: string): z.output<ZodObject<S>> {
  const r = schema.safeParse(source);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  throw new Error(`invalid environment for ${who}:\n  ${lines.join("\n  ")}`);
}
