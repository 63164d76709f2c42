// What a web build is of: the commit, plus the contents of the uncommitted files the build reads.
// A start skips `next build` when the last build had the same key, so a work tree with local
// changes elsewhere (scripts, tests, README) does not rebuild the web app on every start.
import { createHash } from "node:crypto";

/** Paths a web build never reads: changes under them alone keep the last build. */
const NOT_WEB = ["scripts/", "e2e/", "bench/", "apps/worker/", "apps/dataplane/", "drizzle/", ".github/"];

/** Whether a changed path can change what `next build` produces. */
export function readByWebBuild(path) {
  if (NOT_WEB.some((prefix) => path.startsWith(prefix))) return false;
  if (/\.(test|int\.test)\.tsx?$/.test(path) || path.endsWith(".md") || path.endsWith(".gitignore")) return false;
  return true;
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
 * The key of a build of commit `head` with these uncommitted changes: `head` itself when none of
 * them is read by the build, else `head+<hash of their paths and contents>`. `read(path)` returns
 * a file's contents, or null when it is gone.
 */
export function webBuildKey(head, porcelainZ, read) {
  const relevant = [...new Set(changedPaths(porcelainZ).filter(readByWebBuild))].sort();
  if (relevant.length === 0) return head;
  const h = createHash("sha256");
  for (const path of relevant) {
    const contents = read(path);
    h.update(path).update("\0").update(contents === null ? "(deleted)" : contents).update("\0");
  }
  return `${head}+${h.digest("hex").slice(0, 16)}`;
}
