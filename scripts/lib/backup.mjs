// A copy of the panel's own database before migrations change it, so a bad upgrade can be undone.
// Embedded PostgreSQL: a copy of the stopped cluster directory (restore: stop the panel, put the
// copy back as `<data dir>/pg`). DATABASE_URL: `pg_dump --format=custom` when a pg_dump is on PATH.
// Copies are the operator's only: files 0600 in 0700 dirs, and pg_dump gets the password in its
// environment (PGPASSWORD), never on its command line (`ps` shows every process's arguments).
import { chmodSync, closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
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

/** A dir only its owner may enter (created so; an existing one tightened). */
function privateDir(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Every dir under `root` (itself included) 0700, every file 0600. */
function makePrivate(root) {
  const st = statSync(root);
  if (st.isDirectory()) {
    chmodSync(root, 0o700);
    for (const e of readdirSync(root)) makePrivate(join(root, e));
  } else if (st.isFile()) chmodSync(root, 0o600);
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, "-");

function prune(dataDir) {
  const all = readdirSync(backupsDir(dataDir)).filter((n) => n.startsWith("panel-")).sort();
  for (const old of all.slice(0, Math.max(0, all.length - KEEP))) rmSync(join(backupsDir(dataDir), old), { recursive: true, force: true });
}

/** Copies the embedded cluster (PostgreSQL must not be running). Returns the copy's path. */
export function copyCluster(dataDir, pgDir) {
  if (!existsSync(join(pgDir, "PG_VERSION"))) return null;
  privateDir(backupsDir(dataDir));
  const copy = join(backupsDir(dataDir), `panel-${stamp()}`);
  privateDir(copy);
  const dest = join(copy, "pg");
  cpSync(pgDir, dest, { recursive: true, preserveTimestamps: true });
  makePrivate(dest);
  prune(dataDir);
  log(`migrations are pending: copied the panel's database to ${dest} (the last ${KEEP} copies are kept)`);
  return dest;
}

/**
 * pg_dump's arguments and extra environment for a dump of `url` into `file`: the URL without its
 * password (nor a `password` parameter), the password in PGPASSWORD.
 */
export function pgDumpCommand(url, file) {
  const u = new URL(url);
  let password = u.searchParams.get("password");
  u.searchParams.delete("password");
  if (u.password) {
    try {
      password = decodeURIComponent(u.password);
    } catch {
      password = u.password;
    }
    u.password = "";
  }
  const env = password ? { PGPASSWORD: password } : {};
  return { args: ["--format=custom", `--file=${file}`, `--dbname=${u.toString()}`], env };
}

/** `pg_dump` of an external database into the data dir; a missing or failing pg_dump is said, not fatal. */
export function dumpExternal(dataDir, url) {
  const pgDump = which("pg_dump");
  if (!pgDump) {
    log("migrations are pending and no pg_dump is on PATH: back up DATABASE_URL yourself (install the postgresql-client matching your server for automatic dumps)");
    return null;
  }
  privateDir(backupsDir(dataDir));
  const dest = join(backupsDir(dataDir), `panel-${stamp()}.dump`);
  closeSync(openSync(dest, "wx", 0o600)); // pg_dump truncates it and keeps its mode
  const { args, env } = pgDumpCommand(url, dest);
  const r = capture(pgDump, args, { env: { ...process.env, ...env } });
  if (!r.ok) {
    rmSync(dest, { force: true });
    log(`pg_dump of DATABASE_URL failed (${r.stderr.trim().split("\n")[0]}); continuing without a dump`);
    return null;
  }
  prune(dataDir);
  log(`migrations are pending: dumped the panel's database to ${dest}`);
  return dest;
}
