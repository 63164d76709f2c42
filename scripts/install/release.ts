// A release: a copy of the built checkout under `<data dir>/releases/<id>/`, which the web app and
// the worker run from (bind-mounted read-only), so the installation survives the checkout being
// changed, pulled or deleted. Sources are copied; the dependency trees and the web build
// (node_modules, .next) are hard-linked (`cp -al`: cheap, and npm and next replace files rather
// than writing into them), or copied where the data dir is on another file system.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

/** Never part of a release: history, data dirs, caches, test output. */
const SKIP = new Set([".git", ".turbo", ".dockerd", "test-results", "playwright-report"]);
const LINKED = new Set(["node_modules", ".next"]);
const MARKER = ".levelrail-release";
const KEEP = 3;

export const releasesDir = (dataDir: string) => join(dataDir, "releases");

function git(repo: string, args: string[]): string | null {
  const r = spawnSync("git", args, { cwd: repo, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return r.status === 0 ? r.stdout : null;
}

/**
 * The release's id: the commit, and for a tree with uncommitted changes a hash of them too (the
 * same tree twice is the same release: a re-run replaces nothing). Outside git: `local-<time>`.
 */
export function releaseId(repo: string): string {
  const head = git(repo, ["rev-parse", "HEAD"])?.trim();
  if (!head) return `local-${Date.now()}`;
  const status = git(repo, ["status", "--porcelain"]) ?? "";
  if (!status.trim()) return head.slice(0, 12);
  const diff = git(repo, ["diff", "HEAD"]) ?? "";
  return `${head.slice(0, 12)}-dirty-${createHash("sha256").update(status).update(diff).digest("hex").slice(0, 8)}`;
}

/** Hard links a tree (`cp -al`), or copies it when the two paths are on different file systems. */
function linkTree(src: string, dest: string) {
  if (spawnSync("cp", ["-al", src, dest]).status === 0) return;
  rmSync(dest, { recursive: true, force: true });
  const r = spawnSync("cp", ["-a", src, dest], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`copying ${src} failed: ${r.stderr.trim()}`);
}

function copyTree(src: string, dest: string, skip: (path: string) => boolean) {
  mkdirSync(dest, { recursive: true });
  for (const name of readdirSync(src)) {
    const from = join(src, name);
    const to = join(dest, name);
    if (SKIP.has(name) || name.startsWith(".levelrail") || skip(from)) continue;
    const st = lstatSync(from);
    if (st.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (st.isDirectory()) {
      if (LINKED.has(name)) linkTree(from, to);
      else copyTree(from, to, skip);
    } else if (st.isFile()) copyFileSync(from, to);
  }
}

/**
 * `<data dir>/releases/<id>`, copied from `repo` unless it is there already (a copy interrupted
 * half way is made again: it is only renamed into place once complete). Older releases beyond the
 * last three are removed, never `keep` (the one the containers run).
 */
export function ensureRelease(repo: string, dataDir: string, id: string, log: (line: string) => void): string {
  const dest = join(releasesDir(dataDir), id);
  if (existsSync(join(dest, MARKER))) return dest;
  const partial = `${dest}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const started = Date.now();
  // the data dir may live inside the checkout (the default ./.levelrail): never copy it into itself
  copyTree(repo, partial, (p) => p === dataDir || !relative(dataDir, p).startsWith(".."));
  // Next writes its cache here; the containers mount a tmpfs on it (the release is read-only)
  mkdirSync(join(partial, "apps", "web", ".next", "cache"), { recursive: true });
  writeFileSync(join(partial, MARKER), JSON.stringify({ id, from: repo, at: new Date().toISOString() }) + "\n");
  rmSync(dest, { recursive: true, force: true });
  renameSync(partial, dest);
  log(`release ${id} copied to ${dest} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dest;
}

/** Removes releases beyond the newest `KEEP` (by name order of their copy time), never `inUse`. */
export function pruneReleases(dataDir: string, inUse: readonly string[]) {
  const dir = releasesDir(dataDir);
  if (!existsSync(dir)) return;
  const all = readdirSync(dir)
    .map((name) => ({ name, at: lstatSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const r of all.slice(KEEP)) if (!inUse.includes(r.name)) rmSync(join(dir, r.name), { recursive: true, force: true });
}
