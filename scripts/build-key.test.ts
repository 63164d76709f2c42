import { describe, expect, it } from "vitest";
import { changedPaths, readByWebBuild, webBuildKey } from "./lib/build-key.mjs";

const HEAD = "0123456789abcdef0123456789abcdef01234567";

describe("webBuildKey", () => {
  it("is the commit when nothing the web build reads changed", () => {
    expect(webBuildKey(HEAD, "", () => null)).toBe(HEAD);
    const elsewhere = [" M scripts/start.mjs", "?? README.md", " M apps/worker/src/main.ts", " M apps/web/lib/x.test.ts", "?? e2e/tests/new.spec.ts"].join("\0") + "\0";
    expect(webBuildKey(HEAD, elsewhere, () => "x")).toBe(HEAD);
  });

  it("changes with the contents of a changed web file, and only with them", () => {
    const status = " M apps/web/app/page.tsx\0";
    const a = webBuildKey(HEAD, status, () => "one");
    expect(a).toMatch(new RegExp(`^${HEAD}\\+[0-9a-f]{16}$`));
    expect(webBuildKey(HEAD, status, () => "one")).toBe(a);
    expect(webBuildKey(HEAD, status, () => "two")).not.toBe(a);
    expect(webBuildKey(HEAD, status, () => null)).not.toBe(a);
  });

  it("reads both sides of a rename", () => {
    expect(changedPaths("R  packages/spec/src/new.ts\0packages/spec/src/old.ts\0 M apps/web/a.ts\0")).toEqual(["packages/spec/src/new.ts", "packages/spec/src/old.ts", "apps/web/a.ts"]);
  });

  it("counts the shared packages and the lockfile as web inputs", () => {
    for (const p of ["packages/db/src/client.ts", "package-lock.json", "apps/web/next.config.ts", "tsconfig.base.json"]) expect(readByWebBuild(p)).toBe(true);
    for (const p of ["scripts/lib/build.mjs", "bench/soak.ts", "drizzle/0001_x.sql", "packages/db/src/client.test.ts"]) expect(readByWebBuild(p)).toBe(false);
  });
});
