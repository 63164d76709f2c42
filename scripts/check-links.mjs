#!/usr/bin/env node
// Every relative link in README.md, docs/**/*.md and bench/RESULTS.md must resolve: the file (or
// folder) it names exists, and a `#anchor` names a heading of that file by its GitHub slug. Exits 1
// naming each broken link (file:line: target: why). No dependencies; run by `npm test`'s lint step.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The Markdown files whose links are checked. */
function sources() {
  const files = ["README.md", "bench/RESULTS.md"].map((f) => join(root, f)).filter((f) => existsSync(f));
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".md")) files.push(p);
    }
  };
  if (existsSync(join(root, "docs"))) walk(join(root, "docs"));
  return files;
}

/** The file's lines with fenced code blocks blanked (their links are examples, not links). */
function proseLines(text) {
  let fence = null;
  return text.split("\n").map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === null) fence = m[1][0];
      else if (m[1][0] === fence) fence = null;
      return "";
    }
    return fence === null ? line : "";
  });
}

/** GitHub's heading slug (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
function slug(heading) {
  const text = heading
    .replace(/<[^>]+>/g, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*`]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

const anchorCache = new Map();
/** Every anchor a Markdown file defines: its headings' slugs (repeats get -1, -2, …) and explicit ids. */
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const seen = new Map();
  const anchors = new Set();
  for (const line of proseLines(readFileSync(file, "utf8"))) {
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

/** Link targets on a line: inline links and images `[text](target)`, and reference definitions. */
function targetsOf(line) {
  const out = [];
  const bare = line.replace(/`[^`]*`/g, (s) => " ".repeat(s.length));
  for (const m of bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]);
  const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(bare);
  if (def) out.push(def[1]);
  return out;
}

const broken = [];
for (const file of sources()) {
  const lines = proseLines(readFileSync(file, "utf8"));
  lines.forEach((line, i) => {
    for (const target of targetsOf(line)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue; // http:, mailto:, …
      const where = `${relative(root, file)}:${i + 1}: ${target}`;
      const [pathPart, anchor] = target.split("#", 2);
      const path = decodeURIComponent(pathPart);
      const dest = path === "" ? file : path.startsWith("/") ? join(root, path) : resolve(dirname(file), path);
      if (!existsSync(dest)) {
        broken.push(`${where}: no such file ${relative(root, dest)}`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (!dest.endsWith(".md") || statSync(dest).isDirectory()) continue; // a line anchor of a code file (#L10): not checked
      if (!anchorsOf(dest).has(decodeURIComponent(anchor))) broken.push(`${where}: no heading #${anchor} in ${relative(root, dest)}`);
    }
  });
}

if (broken.length) {
  console.error(`broken links (${broken.length}):\n${broken.map((b) => `  ${b}`).join("\n")}`);
  process.exit(1);
}
console.log(`links: every relative link resolves (${sources().length} files)`);
