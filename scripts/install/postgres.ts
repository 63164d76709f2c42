// The panel's PostgreSQL in install mode: its data on the named volume `<short>-panel-pg`. The first
// install over a data dir that `npm start` used adopts the embedded cluster (`<data dir>/pg`, the
// same PostgreSQL 17 binaries) by copying it into the volume as it is: every database, role and
// password comes along, and the original stays where it was.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type Docker from "dockerode";
import postgres from "postgres";
import { pidAlive } from "../lib/util.mjs";
import { type InstallConfig, PANEL_DB, PANEL_DB_USER } from "./config";
import { roleLabels } from "./containers";
import { panelVolume } from "./specs";

/** In the volume while an adoption copies into it: a cluster with it is incomplete and is copied again. */
const ADOPTING = ".levelrail-adopting";
/** The uid of `postgres` in the panel's PostgreSQL image (as the official image's). */
const PG_UID = 999;
const MAJOR = "17";

export interface PanelVolume {
  name: string;
  /** Where the engine keeps its files on this host (install runs as root beside the engine). */
  mountpoint: string;
  created: boolean;
}

export async function ensurePanelVolume(docker: Docker, shortName: string): Promise<PanelVolume> {
  const name = panelVolume(shortName);
  try {
    const v = await docker.getVolume(name).inspect();
    if (v.Labels?.["levelrail.instance"] !== shortName) throw new Error(`a volume named ${name} exists without this installation's labels; rename it, then run again`);
    return { name, mountpoint: v.Mountpoint, created: false };
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
  }
  const v = await docker.createVolume({ Name: name, Labels: roleLabels(shortName, "panel-postgres") });
  const info = await docker.getVolume(v.name).inspect();
  return { name, mountpoint: info.Mountpoint, created: true };
}

/** Whether the volume holds a complete cluster. */
export const hasCluster = (mountpoint: string) => existsSync(join(mountpoint, "PG_VERSION")) && !existsSync(join(mountpoint, ADOPTING));

/** The pid in a cluster's postmaster.pid when that process still runs. */
function runningPostmaster(pgDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(pgDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return pidAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Copies `npm start`'s embedded cluster into an empty (or half-adopted) volume; returns whether it
 * did. The embedded server must be stopped (the launcher checks that no panel runs).
 */
export function adoptEmbeddedCluster(dataDir: string, volume: PanelVolume, log: (line: string) => void): boolean {
  const src = join(dataDir, "pg");
  if (!existsSync(join(src, "PG_VERSION")) || hasCluster(volume.mountpoint)) return false;
  const major = readFileSync(join(src, "PG_VERSION"), "utf8").trim();
  if (major !== MAJOR) throw new Error(`${src} is a PostgreSQL ${major} cluster; the installed PostgreSQL is ${MAJOR}`);
  const pid = runningPostmaster(src);
  if (pid) throw new Error(`the embedded PostgreSQL of ${dataDir} still runs (pid ${pid}); stop it (\`npx levelrail stop\`), then run again`);
  const mp = volume.mountpoint;
  writeFileSync(join(mp, ADOPTING), "");
  for (const name of readdirSync(mp)) if (name !== ADOPTING) rmSync(join(mp, name), { recursive: true, force: true });
  const cp = spawnSync("cp", ["-a", `${src}/.`, `${mp}/`], { encoding: "utf8" });
  if (cp.status !== 0) throw new Error(`copying ${src} into the volume ${volume.name} failed: ${cp.stderr.trim()}`);
  rmSync(join(mp, "postmaster.pid"), { force: true });
  const own = spawnSync("chown", ["-R", `${PG_UID}:${PG_UID}`, mp], { encoding: "utf8" });
  if (own.status !== 0) throw new Error(`chown of the volume ${volume.name} failed: ${own.stderr.trim()}`);
  rmSync(join(mp, ADOPTING));
  log(`adopted the embedded PostgreSQL of ${dataDir} (${src}, left in place) into the volume ${volume.name}`);
  return true;
}

/** Waits until the installed PostgreSQL accepts the panel's login on its database. */
export async function waitForPostgres(cfg: InstallConfig, password: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    const sql = postgres({ host: "127.0.0.1", port: cfg.pgPort, user: PANEL_DB_USER, password, database: PANEL_DB, max: 1, connect_timeout: 3, onnotice: () => {} });
    try {
      await sql`select 1`;
      return;
    } catch (err) {
      last = (err as Error).message;
    } finally {
      await sql.end({ timeout: 1 }).catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the panel's PostgreSQL did not accept connections on 127.0.0.1:${cfg.pgPort} within ${timeoutMs / 1000} s (${last}); see \`docker logs ${cfg.shortName}-panel-postgres\``);
}
