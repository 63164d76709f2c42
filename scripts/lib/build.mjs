// Migrations and the web build, shared by `npm start` and `npm test`.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { precompress } from "../../apps/web/server/static-br.mjs";
import { BUNDLES, bundle } from "./bundle.mjs";
import { WEB_INPUTS, webBuildKey } from "./build-key.mjs";
import { repoRoot } from "./paths.mjs";
import { run } from "./lifecycle.mjs";
import { Fatal, capture, log, quietEnv } from "./util.mjs";

/**
 * Applies pending migrations to `env.DATABASE_URL`, in this process: @levelrail/db's
 * `runMigrations` (what `levelrail migrate` runs), compiled to JavaScript when it changed, and
 * writes `LEVELRAIL_AUDIT_RETENTION_DAYS` (`env`'s, else this process's, else 365) to the
 * owner-only `audit_policy` the audit log's retention applies (docs/security.md). Given
 * `panel` (`startDatabase`'s), then sets up that role's grants and answers the URL the web app and
 * the worker connect with; else `env.DATABASE_URL`.
 */
export async function migrate(env, panel = null) {
  const { outfile } = await bundle(BUNDLES.migrate);
  const { migrateForPanel } = await import(pathToFileURL(outfile).href);
  const days = env.LEVELRAIL_AUDIT_RETENTION_DAYS ?? process.env.LEVELRAIL_AUDIT_RETENTION_DAYS;
  let url;
  try {
    url = await migrateForPanel(env.DATABASE_URL, panel, { auditRetentionDays: days === undefined || days === "" ? undefined : Number(days) });
  } catch (err) {
    const cause = err?.cause?.message ? ` (${err.cause.message})` : "";
    throw new Fatal(`migrations failed: ${String(err?.message ?? err).replace(/\s+/g, " ").trim()}${cause}`);
  }
  log(panel ? `migrations applied; the panel connects as ${panel.role}` : "migrations applied");
  return url;
}

const nextDir = join(repoRoot, "apps", "web", ".next");
const stampFile = join(nextDir, "levelrail-build.stamp");

/** The key of what a build now would be built from (see build-key.mjs), or null outside a git checkout. */
function currentKey() {
  const committed = capture("git", ["ls-tree", "HEAD", "--", ...WEB_INPUTS], { cwd: repoRoot });
  const status = capture("git", ["status", "--porcelain", "-z", "--untracked-files=all", "--", ...WEB_INPUTS], { cwd: repoRoot });
  if (!committed.ok || !status.ok || committed.stdout.trim() === "") return null;
  const read = (path) => {
    try {
      return readFileSync(join(repoRoot, path));
    } catch {
      return null;
    }
  };
  return webBuildKey(committed.stdout, status.stdout, read);
}

/** Whether apps/web/.next was built from the sources as they are now (no build needed). */
export function webBuildCurrent() {
  const key = currentKey();
  return key !== null && existsSync(join(nextDir, "BUILD_ID")) && existsSync(stampFile) && readFileSync(stampFile, "utf8").trim() === key;
}

/**
 * `next build` of apps/web, skipped when the last build had the same key: the same committed
 * web inputs (apps/web, packages, the manifests), and the same contents of any uncommitted one. `env` reaches the build (pages that
 * read the database at build time need it). `fast` (`npm start`, and `npm test` after its
 * typecheck step) skips Next's own type check, which `tsc` covers (LEVELRAIL_BUILD_FAST, read by
 * next.config.ts); Next 16 does not lint during a build.
 */
export async function buildWeb(env, { fast = false } = {}) {
  if (webBuildCurrent()) {
    log("web app already built from these sources; skipping the build");
    await precompressWeb();
    return;
  }
  const key = currentKey();
  log(`building the web app (next build${fast ? ", type check left to tsc" : ""})`);
  rmSync(stampFile, { force: true });
  const buildEnv = { ...process.env, ...quietEnv, ...env, ...(fast ? { LEVELRAIL_BUILD_FAST: "1" } : {}) };
  await run(process.execPath, [join(repoRoot, "node_modules", "next", "dist", "bin", "next"), "build"], { cwd: join(repoRoot, "apps", "web"), env: buildEnv });
  await precompressWeb();
  if (key) writeFileSync(stampFile, key + "\n");
}

/** The build's static JavaScript and CSS, brotli-compressed once for the web server to send (apps/web/server/static-br.mjs); a no-op when done. */
async function precompressWeb() {
  const { files, raw, compressed } = await precompress(nextDir);
  if (files > 0) log(`compressed the web app's static files for browsers (${files} files, ${(raw / 1024).toFixed(0)} → ${(compressed / 1024).toFixed(0)} kB brotli)`);
}
