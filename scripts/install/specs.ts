// The create options of the control plane's containers (pure): PostgreSQL on a named volume, the
// web app and the worker from a release copy. All on the host network (loopback ports, as `npm
// start` uses them), under `unless-stopped`, so the engine brings them back after a crash or a
// reboot. Secrets reach them only as read-only files: the data dir (master.key, pg-password,
// smtp-url) is mounted read-only, DATABASE_URL has no password and the SMTP URL is named by
// LEVELRAIL_SMTP_URL_FILE, so `docker inspect` shows none of them.
import { basename, dirname, join } from "node:path";
import { CONTAINER_DATA_DIR, CONTAINER_ENGINE_DIR, type InstallConfig, PANEL_DB, PANEL_DB_USER, WEB_GID, WEB_UID, panelDatabaseUrl, passwordFile } from "./config";
import type { ContainerSpec } from "./containers";

export const panelVolume = (shortName: string) => `${shortName}-panel-pg`;
export const containerName = (shortName: string, role: "postgres" | "web" | "worker") => `${shortName}-panel-${role}`;

/** Where the engine keeps a panel container's log: json-file, rotated, so a chatty worker cannot fill the disk. */
const LOG_CONFIG = { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } };
const PG_SECRET = "/run/secrets/pg-password";

export interface Release {
  /** The release copy on the host (`<data dir>/releases/<id>`). */
  dir: string;
  /** The checkout it was copied from: mounted at that same path, so paths baked into the build resolve. */
  mountAt: string;
  id: string;
}

export function postgresSpec(cfg: InstallConfig, image: string): ContainerSpec {
  return {
    name: containerName(cfg.shortName, "postgres"),
    role: "panel-postgres",
    create: {
      Image: image,
      // loopback only: the host network, and only 127.0.0.1 (the web app and the worker are on the host network too)
      Cmd: ["postgres", "-c", "listen_addresses=127.0.0.1", "-c", `port=${cfg.pgPort}`, "-c", "max_connections=200"],
      Env: [`POSTGRES_USER=${PANEL_DB_USER}`, `POSTGRES_DB=${PANEL_DB}`, `POSTGRES_PASSWORD_FILE=${PG_SECRET}`],
      StopSignal: "SIGINT",
      HostConfig: {
        NetworkMode: "host",
        RestartPolicy: { Name: "unless-stopped" },
        LogConfig: LOG_CONFIG,
        Mounts: [
          { Type: "volume", Source: panelVolume(cfg.shortName), Target: "/var/lib/postgresql/data" },
          { Type: "bind", Source: passwordFile(cfg.dataDir), Target: PG_SECRET, ReadOnly: true },
        ],
      },
    },
  };
}

/** What the web app and the worker both get: settings, the database without its password, the data dir read-only. */
function panelBase(cfg: InstallConfig, image: string, release: Release, extraEnv: Record<string, string> = {}) {
  const env = {
    ...cfg.panelEnv,
    ...extraEnv,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    LEVELRAIL_SHORT_NAME: cfg.shortName,
    LEVELRAIL_DATA_DIR: CONTAINER_DATA_DIR,
    DATABASE_URL: panelDatabaseUrl(cfg),
    DATABASE_PASSWORD_FILE: `${CONTAINER_DATA_DIR}/pg-password`,
    DOCKER_HOST: `unix://${join(CONTAINER_ENGINE_DIR, basename(cfg.dockerSocket))}`,
    PORT: String(cfg.webPort),
  };
  return {
    Image: image,
    Env: Object.entries(env)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`),
    Labels: { "levelrail.release": release.id },
    HostConfig: {
      NetworkMode: "host",
      RestartPolicy: { Name: "unless-stopped" },
      LogConfig: LOG_CONFIG,
      // the engine's init as PID 1: node there would ignore SIGTERM (no handler in the web server), so every stop would wait for SIGKILL
      Init: true,
      Mounts: [
        { Type: "bind" as const, Source: release.dir, Target: release.mountAt, ReadOnly: true },
        { Type: "bind" as const, Source: cfg.dataDir, Target: CONTAINER_DATA_DIR, ReadOnly: true },
        { Type: "bind" as const, Source: dirname(cfg.dockerSocket), Target: CONTAINER_ENGINE_DIR },
      ],
    },
  };
}

/**
 * The web app runs as WEB_UID, not root: it reads its secrets (owned by that user, see
 * install.ts's `grantWebSecrets`) and writes only its tmpfs cache. It still reads the engine (the
 * logs it streams and the nodes it lists go through `@levelrail/docker`), so it keeps the engine's
 * socket, through the socket's group (`engineGid`, the gid of the socket file on the host).
 */
export function webSpec(cfg: InstallConfig, image: string, release: Release, o: { engineGid?: number } = {}): ContainerSpec {
  // invitation emails are the web app's alone: only it is told where the SMTP URL's file is
  const base = panelBase(cfg, image, release, cfg.smtpUrl ? { LEVELRAIL_SMTP_URL_FILE: `${CONTAINER_DATA_DIR}/smtp-url` } : {});
  return {
    name: containerName(cfg.shortName, "web"),
    role: "panel-web",
    create: {
      ...base,
      User: `${WEB_UID}:${WEB_GID}`,
      WorkingDir: join(release.mountAt, "apps", "web"),
      // Not `next start`: server/main.mjs resolves the caller's address (see the README).
      Cmd: [process.execPath, "server/main.mjs"],
      HostConfig: {
        ...base.HostConfig,
        ...(o.engineGid !== undefined ? { GroupAdd: [String(o.engineGid)] } : {}),
        // nothing it runs needs privileges: no setuid way back to root
        SecurityOpt: ["no-new-privileges"],
        CapDrop: ["ALL"],
        // Next writes its cache under .next/cache; the release is read-only
        Mounts: [...base.HostConfig.Mounts, { Type: "tmpfs", Source: "", Target: join(release.mountAt, "apps", "web", ".next", "cache") }],
      },
    },
  };
}

/**
 * `edge`: the ingress is a swarm manager's edge namespace (scripts/lib/edge.mjs): the worker talks to
 * its Caddy on the admin socket in `<data dir>/edge-caddy`, at the path the Caddy container's label
 * names, so that folder is mounted at the same path.
 */
export function workerSpec(cfg: InstallConfig, image: string, release: Release, o: { edge?: boolean } = {}): ContainerSpec {
  const base = panelBase(cfg, image, release);
  const edgeHome = join(cfg.dataDir, "edge-caddy"); // edgeCaddyHome in scripts/lib/edge.mjs
  return {
    name: containerName(cfg.shortName, "worker"),
    role: "panel-worker",
    create: {
      ...base,
      WorkingDir: release.mountAt,
      Cmd: [process.execPath, "--enable-source-maps", "apps/worker/dist/main.mjs"],
      HostConfig: {
        ...base.HostConfig,
        // the data plane's state, which the worker writes and the mesh DNS reads
        Mounts: [
          ...base.HostConfig.Mounts,
          { Type: "bind", Source: join(cfg.dataDir, "dataplane"), Target: `${CONTAINER_DATA_DIR}/dataplane` },
          ...(o.edge ? [{ Type: "bind" as const, Source: edgeHome, Target: edgeHome }] : []),
        ],
      },
    },
  };
}
