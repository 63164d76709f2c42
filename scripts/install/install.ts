// `levelrail install`: the whole installation unattended, as containers the engine supervises.
// Every step checks what exists (by name and labels) and does only what is missing or different,
// so a second run changes nothing, a run from a newer checkout upgrades, and a run after one that
// was killed half way finishes it.
import { chmodSync, chownSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";
import { databaseUrl } from "@levelrail/config/env";
import { copyCluster, migrationsPending, recordMigrated } from "../lib/backup.mjs";
import { buildWeb, migrate } from "../lib/build.mjs";
import { BUNDLES, bundle } from "../lib/bundle.mjs";
import { ensureIngress } from "../lib/ingress.mjs";
import { liveDatabaseUrl, password } from "../lib/database.mjs";
import { ensureMasterKeyFile, repoRoot } from "../lib/paths.mjs";
import { ensureDocker, httpStatus } from "../lib/system.mjs";
import { livePanelPid, waitFor } from "../lib/util.mjs";
import { portCheck, procPortProbe } from "../doctor/ports";
import { findOurCaddy } from "../doctor/probes";
import { hostProc } from "../doctor/procfs";
import { type InstallConfig, WEB_GID, WEB_UID, passwordFile, panelDatabaseUrl, smtpUrlFile } from "./config";
import { type EnsureOutcome, ensureContainer, stopIfRunning } from "./containers";
import { ensurePanelImages } from "./images";
import { adoptEmbeddedCluster, ensurePanelVolume, hasCluster, waitForPostgres } from "./postgres";
import { ensureRelease, pruneReleases, releaseId } from "./release";
import { containerName, postgresSpec, webSpec, workerSpec } from "./specs";
import { writeInstallState } from "./state";

export interface InstallOptions {
  /** Build the web app when this checkout's build is stale (as `npm start` does); tests reuse theirs. */
  build: boolean;
  /** The release's id; default: from this checkout's git state (tests name one to stage an upgrade). */
  release?: string;
  log: (line: string) => void;
}

export interface InstallResult {
  url: string;
  release: string;
  seconds: number;
  outcomes: Record<string, EnsureOutcome>;
}

/** Whether the engine answers (without installing or starting anything). */
async function engineAnswers(docker: Docker): Promise<boolean> {
  try {
    await docker.ping();
    return true;
  } catch {
    return false;
  }
}

/**
 * What must hold before anything changes: no panel of `npm start` on this data dir, and the ingress
 * ports free or held by this installation's own Caddy (doctor's port check names any other holder).
 */
async function preflight(docker: Docker, cfg: InstallConfig) {
  const panel = livePanelPid(join(cfg.dataDir, "panel.pid"));
  if (panel) throw new Error(`\`npm start\` runs a panel from ${cfg.dataDir} (pid ${panel}); stop it (\`npx levelrail stop\`), then install (it adopts its data)`);
  if (liveDatabaseUrl(cfg.dataDir)) throw new Error(`a Levelrail process runs the embedded PostgreSQL of ${cfg.dataDir}; stop it, then run again`);
  const engine = (await engineAnswers(docker)) ? docker : null;
  const probe = procPortProbe(hostProc, () => findOurCaddy({ docker: engine, shortName: cfg.shortName, dataDir: cfg.dataDir, proc: hostProc }));
  for (const [name, port, variable] of [
    ["port-http", cfg.ingressHttpPort, "LEVELRAIL_INGRESS_HTTP_PORT"],
    ["port-https", cfg.ingressHttpsPort, "LEVELRAIL_INGRESS_HTTPS_PORT"],
  ] as const) {
    const r = await portCheck({ name, port, variable }, probe);
    if (r.status === "fail") throw new Error(`${r.message}; nothing was changed`);
  }
}

/**
 * `<data dir>/smtp-url` holds the SMTP URL (mode 0600), or is absent without one; returns whether
 * that changed (the web app reads it when it starts). Never the URL in the environment: there
 * `docker inspect` would show its password.
 */
export function writeSmtpUrlFile(dataDir: string, url: string | undefined): boolean {
  const file = smtpUrlFile(dataDir);
  const had = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  const want = url === undefined ? undefined : `${url}\n`;
  if (had === want) return false;
  if (want === undefined) rmSync(file, { force: true });
  else writeFileSync(file, want, { mode: 0o600 });
  return true;
}

/**
 * The web app runs as WEB_UID (see specs.ts): the secret files it reads become that user's (mode
 * 0600 still: root, which the worker, the CLI and the installer run as, reads them anyway), and the
 * data dir lets WEB_GID pass through (`x`, not list) to reach them by name. `levelrail rotate-key`
 * gives its new key files the owner of the old ones.
 */
export function grantWebSecrets(dataDir: string) {
  for (const name of ["master.key", "master.key.previous", "pg-password", "smtp-url"]) {
    const file = join(dataDir, name);
    if (existsSync(file)) chownSync(file, WEB_UID, WEB_GID);
  }
  const st = statSync(dataDir);
  chownSync(dataDir, st.uid, WEB_GID);
  chmodSync(dataDir, (st.mode & 0o777) | 0o010);
}

export async function install(cfg: InstallConfig, opts: InstallOptions): Promise<InstallResult> {
  const started = Date.now();
  const { log } = opts;
  // the launcher's helpers (ensureDocker, ensureIngress) drive the engine of DOCKER_HOST: the same one
  const processSocket = (process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock").replace(/^unix:\/\//, "");
  if (processSocket !== cfg.dockerSocket) throw new Error(`DOCKER_HOST of this process (${processSocket}) is not the engine being installed on (${cfg.dockerSocket})`);
  const docker = new Docker({ socketPath: cfg.dockerSocket });
  await preflight(docker, cfg);

  await ensureDocker({ dataDir: cfg.dataDir });
  ensureMasterKeyFile(cfg.dataDir);
  const smtpChanged = writeSmtpUrlFile(cfg.dataDir, cfg.smtpUrl);
  const pgPassword: string = password(cfg.dataDir);
  grantWebSecrets(cfg.dataDir);
  const images = await ensurePanelImages(docker, cfg.shortName, log);

  // The data plane first: it serves the apps whatever happens to the panel from here on.
  // On a swarm manager, the edge namespace (with the node agents when LEVELRAIL_SWARM_REGISTRY is set).
  const ingress = await ensureIngress({ dataDir: cfg.dataDir, short: cfg.shortName, caddyAdmin: cfg.caddyAdmin, meshPort: cfg.meshDnsPort, env: { ...cfg.panelEnv, LEVELRAIL_SWARM_REGISTRY_PASSWORD: process.env.LEVELRAIL_SWARM_REGISTRY_PASSWORD } });

  // PostgreSQL on its volume; the first install over an `npm start` data dir adopts its cluster.
  const volume = await ensurePanelVolume(docker, cfg.shortName);
  const adopted = adoptEmbeddedCluster(cfg.dataDir, volume, log);
  const fresh = !adopted && !hasCluster(volume.mountpoint);
  const outcomes: Record<string, EnsureOutcome> = {};
  const pg = postgresSpec(cfg, images.postgres);
  outcomes.postgres = await ensureContainer(docker, cfg.shortName, pg);
  await waitForPostgres(cfg, pgPassword);

  // The new release, built and copied while the old panel still serves.
  const dbEnv = { DATABASE_URL: panelDatabaseUrl(cfg), DATABASE_PASSWORD_FILE: passwordFile(cfg.dataDir), LEVELRAIL_DATA_DIR: cfg.dataDir };
  if (opts.build) await buildWeb({ ...cfg.panelEnv, ...dbEnv }, { fast: true });
  await bundle(BUNDLES.worker); // the worker runs compiled JavaScript (apps/worker/dist), copied with the release
  const id = opts.release ?? releaseId(repoRoot);
  const release = { id, dir: ensureRelease(repoRoot, cfg.dataDir, id, log), mountAt: repoRoot };

  // Migrations, after a copy of the stopped cluster (the panel is down for it; the apps are not).
  if (migrationsPending(cfg.dataDir) && !fresh) {
    for (const role of ["web", "worker"] as const) await stopIfRunning(docker, cfg.shortName, containerName(cfg.shortName, role), `panel-${role}`);
    await stopIfRunning(docker, cfg.shortName, pg.name, "panel-postgres");
    copyCluster(cfg.dataDir, volume.mountpoint);
    outcomes.postgres = await ensureContainer(docker, cfg.shortName, pg);
    await waitForPostgres(cfg, pgPassword);
  }
  await migrate({ DATABASE_URL: databaseUrl(dbEnv) }); // in this process; the URL with its password never leaves it
  recordMigrated(cfg.dataDir);

  // The worker first (one leads at a time: the old one stops before the new one starts), then the web app.
  outcomes.worker = await ensureContainer(docker, cfg.shortName, workerSpec(cfg, images.node, release, { edge: ingress === "edge" }));
  outcomes.web = await ensureContainer(docker, cfg.shortName, webSpec(cfg, images.node, release, { engineGid: statSync(cfg.dockerSocket).gid }));
  if (outcomes.web === "kept" && smtpChanged) {
    // the same options, a new SMTP URL in its file: the web app reads it when it starts
    await docker.getContainer(containerName(cfg.shortName, "web")).restart({ t: 30 });
    outcomes.web = "started";
  }
  const web = `http://127.0.0.1:${cfg.webPort}`;
  const up = await waitFor(async () => (await httpStatus({ socketPath: undefined, url: web, path: "/api/v1/orgs" })) > 0, { timeoutMs: 120_000, intervalMs: 300 });
  if (!up) throw new Error(`the web app did not answer on ${web} within 120 s; see \`docker logs ${containerName(cfg.shortName, "web")}\``);

  writeInstallState(cfg.dataDir, { shortName: cfg.shortName, pgPort: cfg.pgPort, webPort: cfg.webPort, release: id, installedAt: new Date().toISOString() });
  pruneReleases(cfg.dataDir, [id]);
  return { url: cfg.panelEnv.LEVELRAIL_PUBLIC_URL ?? `http://localhost:${cfg.webPort}`, release: id, seconds: (Date.now() - started) / 1000, outcomes };
}
