import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundle, nodeArgs } from "./lib/bundle.mjs";

describe("bundle", () => {
  let dir: string;
  let entry: string;
  let dep: string;
  let outfile: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lr-bundle-"));
    entry = join(dir, "main.ts");
    dep = join(dir, "greeting.ts");
    outfile = join(dir, "dist", "main.mjs");
    writeFileSync(dep, 'export const greeting = (name: string): string => `hello ${name}`;\n');
    // A CommonJS-style require of a builtin must work in the ES module output (the banner's createRequire).
    writeFileSync(entry, 'import { greeting } from "./greeting";\nconst os = require("node:os") as { EOL: string };\nprocess.stdout.write(greeting("world") + os.EOL);\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const runIt = () => execFileSync(process.execPath, nodeArgs(outfile), { encoding: "utf8" });

  it("compiles TypeScript into one runnable ES module, then reuses it until an input changes", async () => {
    expect(await bundle({ entry, outfile })).toEqual({ outfile, built: true });
    expect(runIt()).toBe("hello world\n");
    expect((await bundle({ entry, outfile })).built).toBe(false);

    writeFileSync(dep, 'export const greeting = (name: string): string => `hi ${name}`;\n');
    const later = new Date(Date.now() + 5000);
    utimesSync(dep, later, later);
    expect((await bundle({ entry, outfile })).built).toBe(true);
    expect(runIt()).toBe("hi world\n");
  });

  it("reuses the output when an input was rewritten as it was (a newer mtime, the same contents)", async () => {
    await bundle({ entry, outfile });
    const later = new Date(Date.now() + 5000);
    utimesSync(dep, later, later);
    expect((await bundle({ entry, outfile })).built).toBe(false);
  });

  it("copies the files bundled code reads beside itself (dockerode's BuildKit protos), on a build and on a reuse", async () => {
    // Inside the repo: the bundle resolves dockerode from the repo's node_modules.
    const here = mkdtempSync(join(dirname(new URL(import.meta.url).pathname), ".lr-bundle-"));
    try {
      const main = join(here, "main.ts");
      const out = join(here, "dist", "main.mjs");
      writeFileSync(main, 'import Docker from "dockerode";\nprocess.stdout.write(typeof Docker + "\\n");\n');
      await bundle({ entry: main, outfile: out });
      const protos = join(here, "dist", "proto");
      expect(readdirSync(protos).sort()).toEqual(expect.arrayContaining(["auth.proto", "buildkit_status.proto"]));
      rmSync(protos, { recursive: true });
      expect((await bundle({ entry: main, outfile: out })).built).toBe(false);
      expect(existsSync(join(protos, "auth.proto"))).toBe(true);
      // A bundle without dockerode gets none.
      await bundle({ entry, outfile });
      expect(existsSync(join(dir, "dist", "proto"))).toBe(false);
    } finally {
      rmSync(here, { recursive: true, force: true });
    }
  });

  it("rebuilds when the output or an input is gone", async () => {
    await bundle({ entry, outfile });
    rmSync(outfile);
    expect((await bundle({ entry, outfile })).built).toBe(true);
    writeFileSync(entry, 'process.stdout.write("alone\\n");\n');
    const later = new Date(Date.now() + 5000);
    utimesSync(entry, later, later);
    await bundle({ entry, outfile });
    rmSync(dep);
    expect((await bundle({ entry, outfile })).built).toBe(false); // no longer an input
    expect(runIt()).toBe("alone\n");
  });
});
