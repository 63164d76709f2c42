// Where things live. The repo root is found from this file, so the scripts work from any cwd.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** `node_modules/.bin/<name>` of the repo. */
export const bin = (name) => join(repoRoot, "node_modules", ".bin", name);

/**
 * The data dir as an absolute path: `LEVELRAIL_DATA_DIR` (relative to the cwd) or
 * `<repo>/<fallback>`. Created if missing, mode 0700 (it holds the master key and copies of the
 * panel's database; as root with the embedded PostgreSQL, the start adds o+x, for the postgres user
 * to reach its cluster). An existing one keeps its mode.
 */
export function resolveDataDir(fromEnv, fallback) {
  const dir = fromEnv ? resolve(process.cwd(), fromEnv) : join(repoRoot, fallback);
  // Never tightened here: every CLI command resolves the data dir, and taking away the o+x the
  // embedded PostgreSQL's user needs (see database.mjs) would cut a running cluster off its files.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  mkdirSync(join(dir, "logs"), { recursive: true });
  return dir;
}

/** The embedded database a start writes for the CLI in another terminal. */
export const databaseUrlFile = (dataDir) => join(dataDir, "database.url");

/**
 * Generates `<dataDir>/master.key` (32 random bytes, base64, mode 0600) once, before the web app
 * and the worker start, so the two never race to create it. Same format as
 * `loadMasterKey` of @levelrail/secrets, which reads it.
 */
export function ensureMasterKeyFile(dataDir) {
  if (process.env.LEVELRAIL_MASTER_KEY) return;
  const file = join(dataDir, "master.key");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
}
