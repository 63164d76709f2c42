// What `levelrail install` installs with: the installer's environment, checked once (pure but for
// reading LEVELRAIL_SMTP_URL_FILE when that names the SMTP URL).
import { join } from "node:path";
import { envSchema, parseEnv, smtpUrl } from "@levelrail/config/env";

/** The embedded PostgreSQL port of `npm start`; the installed PostgreSQL listens there too (loopback). */
export const DEFAULT_PG_PORT = 54329;
/** Where the data dir is mounted in the web and worker containers (read-only; `dataplane/` writable for the worker). */
export const CONTAINER_DATA_DIR = "/var/lib/levelrail";
/** Where the engine's socket is mounted in the worker and web containers. */
/**
 * Where the engine's socket's folder is mounted in the panel's containers: the folder, not the socket
 * file, since a dockerd restart makes a new socket file (with live-restore the containers keep running,
 * and a mount of the old file would leave them talking to nothing).
 */
export const CONTAINER_ENGINE_DIR = "/run/levelrail-engine";
/**
 * The user the web app runs as (never root; the worker alone is root, for the engine and the data
 * plane's state). A uid and gid of their own, in the range Debian keeps unassigned (65000–65533),
 * so no account of the host shares them: the secret files the web app reads are owned by them.
 */
export const WEB_UID = 65101;
export const WEB_GID = 65101;
export const PANEL_DB = "levelrail";
export const PANEL_DB_USER = "postgres";

export interface InstallConfig {
  shortName: string;
  dataDir: string;
  /** The host path of the engine's unix socket (bind-mounted into the worker and the web app). */
  dockerSocket: string;
  pgPort: number;
  webPort: number;
  ingressHttpPort: number;
  ingressHttpsPort: number;
  caddyAdmin: string;
  meshDnsPort: number;
  /** Settings passed on to the web app and the worker as they are (`LEVELRAIL_*` and `PORT`; never a secret). */
  panelEnv: Record<string, string>;
  /**
   * The installation's SMTP URL (it may hold a password): never passed on as environment; the
   * installer writes it to `<data dir>/smtp-url` and the web app reads it from there.
   */
  smtpUrl: string | undefined;
}

/** Variables that are not passed on: secrets, paths of this host, and what the installer sets itself. */
const NOT_PASSED = new Set([
  "LEVELRAIL_DATA_DIR",
  "LEVELRAIL_MASTER_KEY",
  "LEVELRAIL_PREVIOUS_MASTER_KEYS",
  "LEVELRAIL_PG_PORT",
  "LEVELRAIL_URL",
  "LEVELRAIL_TOKEN",
  "LEVELRAIL_SWARM_REGISTRY_PASSWORD",
  "LEVELRAIL_SMTP_URL",
  "LEVELRAIL_SMTP_URL_FILE",
]);

/** The SMTP URL's file in the data dir (written by the installer, mode 0600; absent without one). */
export const smtpUrlFile = (dataDir: string) => join(dataDir, "smtp-url");

/** The panel's password file in the data dir (created by the launcher's database step, mode 0600). */
export const passwordFile = (dataDir: string) => join(dataDir, "pg-password");

/**
 * Reads and checks the installer's environment; throws one line naming what is wrong. The master
 * key and the database are the installation's own (files in the data dir, the PostgreSQL
 * container): a LEVELRAIL_MASTER_KEY or DATABASE_URL in the environment would end up where
 * `docker inspect` shows it, so they are refused.
 */
export function installConfig(env: Record<string, string | undefined>, dataDir: string): InstallConfig {
  for (const secret of ["LEVELRAIL_MASTER_KEY", "LEVELRAIL_PREVIOUS_MASTER_KEYS", "DATABASE_URL"] as const) {
    if (env[secret]) {
      throw new Error(
        secret === "DATABASE_URL"
          ? "DATABASE_URL is set: `levelrail install` runs its own PostgreSQL (unset it)"
          : `${secret} is set: \`levelrail install\` takes the master key from ${join(dataDir, "master.key")} (write the key there, mode 0600, and unset it)`,
      );
    }
  }
  const parsed = parseEnv(envSchema, { ...env, LEVELRAIL_DATA_DIR: dataDir }, "levelrail install");
  const pgPort = Number(env.LEVELRAIL_PG_PORT ?? DEFAULT_PG_PORT);
  if (!Number.isInteger(pgPort) || pgPort < 1 || pgPort > 65535) throw new Error(`LEVELRAIL_PG_PORT=${env.LEVELRAIL_PG_PORT} is not a port number`);
  // the web app runs unprivileged (WEB_UID), so it cannot listen below 1024; Caddy serves 80 and 443
  if (parsed.PORT < 1024) throw new Error(`PORT=${parsed.PORT}: the installed web app runs as an unprivileged user and listens on a port of 1024 or above (Caddy serves 80 and 443)`);
  const host = env.DOCKER_HOST ?? "";
  if (host && !host.startsWith("unix://")) throw new Error(`DOCKER_HOST=${host}: \`levelrail install\` needs the engine of this host, through its unix socket`);
  const panelEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && (key === "PORT" || (key.startsWith("LEVELRAIL_") && !key.startsWith("LEVELRAIL_TEST") && !NOT_PASSED.has(key)))) panelEnv[key] = value;
  }
  return {
    shortName: parsed.LEVELRAIL_SHORT_NAME,
    dataDir,
    dockerSocket: host ? host.slice("unix://".length) : "/var/run/docker.sock",
    pgPort,
    webPort: parsed.PORT,
    ingressHttpPort: parsed.LEVELRAIL_INGRESS_HTTP_PORT,
    ingressHttpsPort: parsed.LEVELRAIL_INGRESS_HTTPS_PORT,
    caddyAdmin: parsed.LEVELRAIL_CADDY_ADMIN,
    meshDnsPort: parsed.LEVELRAIL_MESH_DNS_PORT,
    panelEnv,
    smtpUrl: smtpUrl(parsed),
  };
}

/** DATABASE_URL of the installed PostgreSQL, without its password (that comes from DATABASE_PASSWORD_FILE). */
export const panelDatabaseUrl = (cfg: Pick<InstallConfig, "pgPort">) => `postgres://${PANEL_DB_USER}@127.0.0.1:${cfg.pgPort}/${PANEL_DB}`;
