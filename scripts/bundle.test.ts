import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
