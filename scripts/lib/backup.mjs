// A copy of the panel's own database before migrations change it, so a bad upgrade can be undone.
// Embedded PostgreSQL: a copy of the stopped cluster directory (restore: stop the panel, put the
// copy back as `<data dir>/pg`). DATABASE_URL: `pg_dump --format=custom` when a pg_dump is on PATH.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./paths.mjs";
import { capture, log, which } from "./util.mjs";

const KEEP = 3;
const backupsDir = (dataDir) => join(dataDir, "backups");
const appliedFile = (dataDir) => join(dataDir, "migrations.applied");

/** The newest migration this checkout carries (drizzle's journal). */
function newestMigration() {
  const journal = JSON.parse(readFileSync(join(repoRoot, "drizzle", "meta", "_journal.json"), "utf8"));
  return journal.entries.at(-1)?.tag ?? "";
}

/** Whether this checkout has migrations the database has not had yet (as far as the data dir knows). */
export function migrationsPending(dataDir) {
  const applied = existsSync(appliedFile(dataDir)) ? readFileSync(appliedFile(dataDir), "utf8").trim() : "";
  return applied !== newestMigration();
}

/** After a successful `migrate`: the database is at this checkout's newest migration. */
export function recordMigrated(dataDir) {
  writeFileSync(appliedFile(dataDir), newestMigration() + "\n");
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, "-");

function prune(dataDir) {
  const all = readdirSync(backupsDir(dataDir)).filter((n) => n.startsWith("panel-")).sort();
  for (const old of all.slice(0, Math.max(0, all.length - KEEP))) rmSync(join(backupsDir(dataDir), old), { recursive: true, force: true });
}

/** Copies the embedded cluster (PostgreSQL must not be running). Returns the copy's path. */
export function copyCluster(dataDir, pgDir) {
  if (!existsSync(join(pgDir, "PG_VERSION"))) return null;
  mkdirSync(backupsDir(dataDir), { recursive: true });
  const dest = join(backupsDir(dataDir), `panel-${stamp()}`, "pg");
  cpSync(pgDir, dest, { recursive: true, preserveTimestamps: true });
  prune(dataDir);
  log(`migrations are pending: copied the panel's database to ${dest} (the last ${KEEP} copies are kept)`);
  return dest;
}

/** `pg_dump` of an external database into the data dir; a missing or failing pg_dump is said, not fatal. */
export function dumpExternal(dataDir, url) {
  const pgDump = which("pg_dump");
  if (!pgDump) {
    log("migrations are pending and no pg_dump is on PATH: back up DATABASE_URL yourself (install the postgresql-client matching your server for automatic dumps)");
    return null;
  }
  mkdirSync(backupsDir(dataDir), { recursive: true });
  const dest = join(backupsDir(dataDir), `panel-${stamp()}.dump`);
  const r = capture(pgDump, ["--format=custom", `--file=${dest}`, `--dbname=${url}`]);
  if (!r.ok) {
    rmSync(dest, { force: true });
    log(`pg_dump of DATABASE_URL failed (${r.stderr.trim().split("\n")[0]}); continuing without a dump`);
    return null;
  }
  prune(dataDir);
  log(`migrations are pending: dumped the panel's database to ${dest}`);
  return dest;
}
