// Compiles a TypeScript entry point and everything it imports into one ES module for Node 20
// (esbuild), so a process starts without compiling TypeScript at run time.
import { build } from "esbuild";

/** CommonJS dependencies bundled into an ES module still ask for these. */
const BANNER = [
  "import { createRequire as __lrRequire } from 'node:module';",
  "import { fileURLToPath as __lrPath } from 'node:url';",
  "import { dirname as __lrDirname } from 'node:path';",
  "const require = __lrRequire(import.meta.url);",
  "const __filename = __lrPath(import.meta.url);",
  "const __dirname = __lrDirname(__filename);",
].join(" ");

/** Bundles `entry` into `outfile` (with a source map); native addons stay outside. */
export async function bundle({ entry, outfile }) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    external: ["cpu-features", "*.node"],
    banner: { js: BANNER },
    logLevel: "warning",
  });
}
