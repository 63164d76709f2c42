// Migrations and the web build, shared by `npm start` and `npm test`.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bin, repoRoot } from "./paths.mjs";
import { run } from "./lifecycle.mjs";
import { capture, log, quietEnv } from "./util.mjs";

/** Applies pending migrations through the CLI (`levelrail migrate`). */
export async function migrate(env) {
  await run(bin("tsx"), [join(repoRoot, "scripts", "cli.ts"), "migrate"], { cwd: repoRoot, env: { ...process.env, ...env } });
}

const nextDir = join(repoRoot, "apps", "web", ".next");
const stampFile = join(nextDir, "levelrail-build.stamp");

/** The commit a clean work tree is at, or null (dirty tree, or not a git checkout). */
function cleanHead() {
  const head = capture("git", ["rev-parse", "HEAD"], { cwd: repoRoot });
  const status = capture("git", ["status", "--porcelain"], { cwd: repoRoot });
  return head.ok && status.ok && status.stdout.trim() === "" ? head.stdout.trim() : null;
}

/**
 * `npm run build -w @levelrail/web`, skipped when the last build was of this same commit with a
 * clean tree. `env` reaches the build (pages that read the database at build time need it).
 */
export async function buildWeb(env) {
  const head = cleanHead();
  const built = existsSync(join(nextDir, "BUILD_ID")) && existsSync(stampFile) ? readFileSync(stampFile, "utf8").trim() : null;
  if (head && built === head) {
    log(`web app already built at ${head.slice(0, 12)}; skipping the build`);
    return;
  }
  log("building the web app (npm run build -w @levelrail/web)");
  rmSync(stampFile, { force: true });
  await run("npm", ["run", "build", "-w", "@levelrail/web"], { cwd: repoRoot, env: { ...process.env, ...quietEnv, ...env } });
  if (head) writeFileSync(stampFile, head + "\n");
}
