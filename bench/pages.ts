/**
 * What each page of the panel makes a browser download before it runs, read from the build's
 * manifests (apps/web/.next as `next build` left it; this does not build, and needs no browser):
 * the framework (build-manifest's rootMainFiles: React and Next's runtime, shared by every page),
 * then per page the client chunks its layouts and page load up front (the client-reference
 * manifest's entryJSFiles) and its CSS, each counted gzipped (level 9, as a server compressing
 * it would send it, headers excluded), and the JavaScript also as brotli (what server/main.mjs
 * sends a browser that accepts it: the build's precompressed `.br` copies). Chunks loaded later (next/dynamic, a dynamic import) are
 * not part of a first load and are not counted.
 *
 * `npx tsx bench/pages.ts [--chunks] [path/to/.next]` — --chunks lists each page's own chunks.
 * Also run by `npm run bench -- pages` (standalone) and by bench/scale.ts.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { MIN_BYTES, brotliParams } from "../apps/web/server/static-br.mjs";

export interface PageWeight {
  /** The page's address pattern, e.g. /services/[name]. */
  route: string;
  /** Gzipped bytes of the JavaScript a first load runs, framework included. */
  jsBytes: number;
  /** The same as the server sends it to a browser that accepts brotli (the build's `.br` copies). */
  jsBrBytes: number;
  /** Of which the page's own chunks (beyond the framework). */
  ownJsBytes: number;
  cssBytes: number;
  /** The page's own chunks, largest first. */
  chunks: { file: string; bytes: number; hint: string }[];
}

export interface BuildWeights {
  frameworkBytes: number;
  frameworkBrBytes: number;
  pages: PageWeight[];
}

const defaultNextDir = join(fileURLToPath(new URL("..", import.meta.url)), "apps", "web", ".next");

/** What a chunk holds, guessed from strings its libraries leave in the minified code. */
function hint(code: string): string {
  const marks: [string, RegExp][] = [
    ["zod", /ZodError|\$ZodType|_zod/],
    ["react-query", /QueryClient|queryCache|refetchOnWindowFocus/],
    ["swagger-ui", /swagger-ui|SwaggerUI/],
    ["better-auth", /better-auth|twoFactor/],
  ];
  return marks
    .filter(([, re]) => re.test(code))
    .map(([name]) => name)
    .join(",");
}

export function buildWeights(nextDir = defaultNextDir): BuildWeights {
  const sizes = new Map<string, { bytes: number; hint: string }>();
  const gz = (file: string) => {
    let s = sizes.get(file);
    if (!s) {
      const code = readFileSync(join(nextDir, file));
      s = { bytes: gzipSync(code, { level: 9 }).length, hint: file.endsWith(".js") ? hint(code.toString("utf8")) : "" };
      sizes.set(file, s);
    }
    return s.bytes;
  };
  // What server/main.mjs sends a browser accepting br: the `.br` precompress() wrote (made here the
  // same way when the build has none), or Next's gzip for a file too small to have one.
  const brSizes = new Map<string, number>();
  const br = (file: string) => {
    let bytes = brSizes.get(file);
    if (bytes === undefined) {
      const path = join(nextDir, file);
      const code = readFileSync(path);
      bytes = existsSync(`${path}.br`)
        ? statSync(`${path}.br`).size
        : code.length < MIN_BYTES
          ? gz(file)
          : brotliCompressSync(code, { params: brotliParams(code.length) }).length;
      brSizes.set(file, bytes);
    }
    return bytes;
  };
  const build = JSON.parse(readFileSync(join(nextDir, "build-manifest.json"), "utf8")) as { rootMainFiles: string[] };
  const framework = new Set(build.rootMainFiles);
  const frameworkBytes = [...framework].reduce((sum, f) => sum + gz(f), 0);
  const frameworkBrBytes = [...framework].reduce((sum, f) => sum + br(f), 0);
  const routes = JSON.parse(readFileSync(join(nextDir, "app-path-routes-manifest.json"), "utf8")) as Record<string, string>;
  const pages: PageWeight[] = [];
  for (const [entry, route] of Object.entries(routes)) {
    if (!entry.endsWith("/page") || route.startsWith("/_")) continue;
    const file = join(nextDir, "server", "app", `${entry}_client-reference-manifest.js`);
    if (!existsSync(file)) continue;
    const holder: { __RSC_MANIFEST?: Record<string, { entryJSFiles: Record<string, string[]>; entryCSSFiles: Record<string, { path: string; inlined: boolean }[]> }> } = {};
    new Function("globalThis", readFileSync(file, "utf8"))(holder);
    const m = holder.__RSC_MANIFEST?.[entry];
    if (!m) continue;
    // The page's entry and every layout above it: segments of the entry's path ending in /layout.
    const js = new Set<string>();
    const css = new Set<string>();
    for (const [key, files] of Object.entries(m.entryJSFiles)) if (isAbove(key, entry)) for (const f of files) js.add(f);
    for (const [key, files] of Object.entries(m.entryCSSFiles)) if (isAbove(key, entry)) for (const f of files) if (!f.inlined) css.add(f.path);
    const own = [...js].filter((f) => !framework.has(f));
    const chunks = own.map((f) => ({ file: f, bytes: gz(f), hint: sizes.get(f)?.hint ?? "" })).sort((a, b) => b.bytes - a.bytes);
    const ownJsBytes = chunks.reduce((s, c) => s + c.bytes, 0);
    const jsBrBytes = frameworkBrBytes + own.reduce((sum, f) => sum + br(f), 0);
    pages.push({ route, jsBytes: frameworkBytes + ownJsBytes, jsBrBytes, ownJsBytes, cssBytes: [...css].reduce((s, f) => s + gz(f), 0), chunks });
  }
  pages.sort((a, b) => a.route.localeCompare(b.route));
  return { frameworkBytes, frameworkBrBytes, pages };
}

/** `[project]/apps/web/app/(panel)/layout` is above `/(panel)/services/[name]/page`. */
function isAbove(key: string, entry: string): boolean {
  const path = key.replace(/^\[project\]\/apps\/web\/app/, "");
  if (path === entry) return true;
  if (!path.endsWith("/layout")) return false;
  const dir = path.slice(0, -"/layout".length);
  return entry.startsWith(`${dir}/`);
}

const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

export function printWeights(w: BuildWeights, o: { chunks?: boolean; log?: (line: string) => void } = {}): void {
  const log = o.log ?? console.log;
  log(`framework (every page): ${kB(w.frameworkBytes)} gzip, ${kB(w.frameworkBrBytes)} brotli`);
  for (const p of w.pages) {
    log(`page ${p.route} first-load js: ${kB(p.jsBytes)} gzip, ${kB(p.jsBrBytes)} brotli (own ${kB(p.ownJsBytes)} gzip, css ${kB(p.cssBytes)})`);
    if (o.chunks) for (const c of p.chunks) log(`    ${c.file} ${kB(c.bytes)}${c.hint ? ` [${c.hint}]` : ""}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith("--"));
  printWeights(buildWeights(dir ?? defaultNextDir), { chunks: args.includes("--chunks") });
}
