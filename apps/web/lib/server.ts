import "server-only";
import { QUOTA_VARS, databaseUrl, envSchema, parseEnv, publicUrl, quotaDefaults, requiredDatabaseUrl, smtpUrl } from "@levelrail/config/env";
import { secretsKitFromEnv } from "@levelrail/config/secrets";
import { type Auth, createAuth } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import type { SecretsKit } from "@levelrail/services/env/sources";
import type { OrgCreationPolicy } from "@levelrail/services/org/create";
import { type InviteMailer, smtpMailer } from "@levelrail/services/org/invite-mail";
import { ssoBackend } from "@levelrail/services/org/sso";
import type { QuotaLimits } from "@levelrail/spec/quotas";

/**
 * The web app's wiring: environment parsed with zod once, at the first request
 * that needs it (never at import or build time), and one database pool, master
 * key and better-auth instance per process.
 */
const envSchemaOfWeb = envSchema
  .pick({
    LEVELRAIL_DATA_DIR: true,
    LEVELRAIL_MASTER_KEY: true,
    LEVELRAIL_PREVIOUS_MASTER_KEYS: true,
    PORT: true,
    LEVELRAIL_PUBLIC_URL: true,
    LEVELRAIL_INGRESS_HTTP_PORT: true,
    LEVELRAIL_ORG_CREATION: true,
    LEVELRAIL_MAX_ORGS_PER_OPERATOR: true,
    LEVELRAIL_SHORT_NAME: true,
    DOCKER_HOST: true,
    DATABASE_PASSWORD_FILE: true,
    LEVELRAIL_BASE_DOMAINS: true,
    LEVELRAIL_ALLOW_PRIVATE_TARGETS: true,
    LEVELRAIL_SMTP_URL: true,
    LEVELRAIL_SMTP_URL_FILE: true,
    ...QUOTA_VARS,
  })
  .extend({ DATABASE_URL: requiredDatabaseUrl });

export interface Server {
  db: Db;
  sql: Sql;
  auth: Auth;
  kit: SecretsKit;
  port: number;
  /** Where Caddy serves the services' domains over HTTP: the port of their links. */
  ingressHttpPort: number;
  dataDir: string;
  /** Where operators reach the panel (`LEVELRAIL_PUBLIC_URL`). */
  publicUrl: string;
  trustedOrigins: string[];
  /** `LEVELRAIL_ORG_CREATION` and `LEVELRAIL_MAX_ORGS_PER_OPERATOR`. */
  orgCreation: OrgCreationPolicy;
  /** `LEVELRAIL_ALLOW_PRIVATE_TARGETS`, for every verb's `Ctx`. */
  allowPrivateTargets: boolean;
  /** The installation's default quotas (`LEVELRAIL_QUOTA_*`), for every verb's `Ctx`. */
  quotas: QuotaLimits;
  /** `LEVELRAIL_SHORT_NAME`: the prefix of the Docker objects a verb names (a database's volumes). */
  shortName: string;
  /** `LEVELRAIL_BASE_DOMAINS`: their subdomains (and `*.localhost`) need no ownership proof. */
  baseDomains: string[];
  /** `DOCKER_HOST`, for the read-only log port (unset: the engine's default socket). */
  dockerHost: string | undefined;
  /** The installation's SMTP server (`LEVELRAIL_SMTP_URL` or `_FILE`) for invitation emails; null: links are shown once. */
  mailer: InviteMailer | null;
}

function build(): Server {
  const env = parseEnv(envSchemaOfWeb, process.env, "the web app");
  const { db, sql } = createDb(databaseUrl(env));
  const { keyring, fingerprintKey, masterKey } = secretsKitFromEnv(env);
  const baseURL = publicUrl(env);
  const trustedOrigins = [...new Set([new URL(baseURL).origin, `http://localhost:${env.PORT}`, `http://127.0.0.1:${env.PORT}`])];
  // Single sign-on reaches each organization's issuer under the same address policy as webhooks and backup targets.
  const sso = ssoBackend(db, keyring, { allowPrivate: env.LEVELRAIL_ALLOW_PRIVATE_TARGETS, panelHost: new URL(baseURL).hostname });
  const auth = createAuth({ db, masterKey, baseURL, trustedOrigins, sso });
  const smtp = smtpUrl(env);
  return {
    db,
    sql,
    auth,
    kit: { keyring, fingerprintKey },
    port: env.PORT,
    ingressHttpPort: env.LEVELRAIL_INGRESS_HTTP_PORT,
    dataDir: env.LEVELRAIL_DATA_DIR,
    publicUrl: baseURL,
    trustedOrigins,
    orgCreation: { who: env.LEVELRAIL_ORG_CREATION, maxPerOperator: env.LEVELRAIL_MAX_ORGS_PER_OPERATOR },
    quotas: quotaDefaults(env),
    allowPrivateTargets: env.LEVELRAIL_ALLOW_PRIVATE_TARGETS,
    shortName: env.LEVELRAIL_SHORT_NAME,
    baseDomains: env.LEVELRAIL_BASE_DOMAINS,
    dockerHost: env.DOCKER_HOST,
    mailer: smtp ? smtpMailer(smtp, new URL(baseURL).hostname) : null,
  };
}

// On globalThis so that every route bundle (and dev reloads) share one pool.
const KEY = Symbol.for("levelrail.web.server");
type Holder = { [KEY]?: Server };

export function server(): Server {
  const holder = globalThis as Holder;
  holder[KEY] ??= build();
  return holder[KEY];
}
