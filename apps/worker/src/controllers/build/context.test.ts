import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contextDir } from "./run";

/**
 * The build context and its Dockerfile inside a checkout: the Dockerfile checked (its frontend,
 * secret and SSH mounts) must be the one the engine builds, which resolves symlinks inside the
 * context rather than on the worker's disk, so the Dockerfile's path may hold none.
 */
const root = mkdtempSync(join(tmpdir(), "lrbd-context-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function checkout(files: Record<string, string>, links: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(root, "co-"));
  for (const [p, body] of Object.entries(files)) {
    mkdirSync(join(dir, p, ".."), { recursive: true });
    writeFileSync(join(dir, p), body);
  }
  for (const [p, target] of Object.entries(links)) {
    mkdirSync(join(dir, p, ".."), { recursive: true });
    symlinkSync(target, join(dir, p));
  }
  return dir;
}

describe("contextDir", () => {
  it("reads a plain Dockerfile in the context", async () => {
    const dir = checkout({ "web/Dockerfile": "FROM a\n" });
    expect(await contextDir(dir, "web", "Dockerfile")).toMatchObject({ ok: true, dockerfileText: "FROM a\n" });
    expect(await contextDir(dir, "./web/", "./Dockerfile")).toMatchObject({ ok: true, dockerfileText: "FROM a\n" });
  });

  it.each([
    ["a symlinked Dockerfile", { "web/real": "FROM a\n" }, { "web/Dockerfile": "real" }, "web", "Dockerfile", /symbolic link/],
    ["a Dockerfile under a symlinked directory", { "web/docker/real/Dockerfile": "FROM a\n" }, { "web/d": "docker/real" }, "web", "d/Dockerfile", /symbolic link/],
    // The engine would resolve ../other inside the context (web/other/Dockerfile); the disk outside it.
    ["a symlink out of the context", { "other/Dockerfile": "FROM a\n", "web/other/Dockerfile": "# syntax=x\n" }, { "web/Dockerfile": "../other/Dockerfile" }, "web", "Dockerfile", /symbolic link/],
    ["a symlink out of the checkout", {}, { "web/Dockerfile": "/etc/hostname" }, "web", "Dockerfile", /does not exist/],
    ["no Dockerfile", { "web/x": "" }, {}, "web", "Dockerfile", /does not exist/],
  ])("refuses %s", async (_name, files, links, path, dockerfile, message) => {
    const r = await contextDir(checkout(files, links), path, dockerfile);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.message).toMatch(message);
  });
});
