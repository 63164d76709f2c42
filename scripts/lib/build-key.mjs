// What a web build is built from: the committed trees of its inputs, plus the contents of the
// uncommitted files among them. A start skips `next build` when the last build had the same key,
// so a commit or a local change elsewhere (scripts, the worker, tests, README) keeps the build.
import { createHash } from "node:crypto";

/** What `next build` of apps/web reads from the repo (besides node_modules, which the lockfile pins). */
export const WEB_INPUTS = ["apps/web", "packages", "package.json", "package-lock.json", "tsconfig.base.json"];

/** Whether a changed path can change what `next build` produces. */
export function readByWebBuild(path) {
  if (!WEB_INPUTS.some((input) => path === input || path.startsWith(`${input}/`))) return false;
  return !(/\.test\.tsx?$/.test(path) || path.endsWith(".md"));
}

/** The paths `git status --porcelain -z` lists (both sides of a rename or copy). */
export function changedPaths(porcelainZ) {
  const parts = porcelainZ.split("\0").filter(Boolean);
  const paths = [];
  for (let i = 0; i < parts.length; i++) {
    const status = parts[i].slice(0, 2);
    paths.push(parts[i].slice(3));
    if (status.includes("R") || status.includes("C")) paths.push(parts[++i]);
  }
  return paths;
}

/**
 * The key of a build from `committed` (`git ls-tree HEAD <WEB_INPUTS>`: the inputs' object ids)
 * with these uncommitted changes (`git status --porcelain -z`). `read(path)` returns a file's
 * contents, or null when it is gone.
 */
export function webBuildKey(committed, porcelainZ, read) {
  const h = createHash("sha256").update(committed);
  const relevant = [...new Set(changedPaths(porcelainZ).filter(readByWebBuild))].sort();
  for (const path of relevant) {
    const contents = read(path);
    h.update("\0").update(path).update("\0").update(contents === null ? "(deleted)" : contents);
  }
  return h.digest("hex").slice(0, 16);
}
