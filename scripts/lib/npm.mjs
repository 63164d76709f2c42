// npm packages: installed when node_modules is missing or older than the lockfile or a manifest.
import { existsSync, readdirSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { run } from "./lifecycle.mjs";
import { log, quietEnv } from "./util.mjs";
import { repoRoot } from "./paths.mjs";

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);

/** package.json of the root and of every workspace folder (apps/*, packages/*, e2e). */
function manifests() {
  const files = [join(repoRoot, "package.json"), join(repoRoot, "e2e", "package.json")];
  for (const group of ["apps", "packages"]) {
    const dir = join(repoRoot, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) files.push(join(dir, name, "package.json"));
  }
  return files.filter(existsSync);
}

/** Why an install is needed, or null when node_modules is up to date. */
function staleReason() {
  const stamp = join(repoRoot, "node_modules", ".package-lock.json");
  if (!existsSync(stamp)) return "node_modules is missing";
  const installed = mtime(stamp);
  const newer = [join(repoRoot, "package-lock.json"), ...manifests()].find((f) => mtime(f) > installed);
  return newer ? `${newer.slice(repoRoot.length + 1)} changed since the last install` : null;
}

export async function ensureNpm() {
  const reason = staleReason();
  if (!reason) return;
  const fresh = !existsSync(join(repoRoot, "node_modules"));
  const ci = fresh && existsSync(join(repoRoot, "package-lock.json"));
  const args = [ci ? "ci" : "install", "--no-audit", "--no-fund"];
  log(`${reason}: npm ${args.join(" ")}`);
  await run("npm", args, { cwd: repoRoot, env: { ...process.env, ...quietEnv } });
  // npm leaves the stamp untouched when nothing changed; touch it so the next run skips.
  const now = new Date();
  utimesSync(join(repoRoot, "node_modules", ".package-lock.json"), now, now);
}
