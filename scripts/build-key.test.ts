import { describe, expect, it } from "vitest";
import { changedPaths, readByWebBuild, webBuildKey } from "./lib/build-key.mjs";

const TREES = "040000 tree 1111111111111111111111111111111111111111\tapps/web\n040000 tree 2222222222222222222222222222222222222222\tpackages\n";

describe("webBuildKey", () => {
  it("depends on the committed web inputs only, whatever else changed", () => {
    const clean = webBuildKey(TREES, "", () => null);
    expect(clean).toMatch(/^[0-9a-f]{16}$/);
    const elsewhere = [" M scripts/start.mjs", "?? README.md", " M apps/worker/src/main.ts", " M apps/web/lib/x.test.ts", "?? e2e/tests/new.spec.ts"].join("\0") + "\0";
    expect(webBuildKey(TREES, elsewhere, () => "x")).toBe(clean);
    expect(webBuildKey(TREES.replace("1111", "3333"), "", () => null)).not.toBe(clean);
  });

  it("changes with the contents of an uncommitted web file, and only with them", () => {
    const status = " M apps/web/app/page.tsx\0";
    const a = webBuildKey(TREES, status, () => "one");
    expect(a).not.toBe(webBuildKey(TREES, "", () => null));
    expect(webBuildKey(TREES, status, () => "one")).toBe(a);
    expect(webBuildKey(TREES, status, () => "two")).not.toBe(a);
    expect(webBuildKey(TREES, status, () => null)).not.toBe(a);
  });

  it("reads both sides of a rename", () => {
    expect(changedPaths("R  packages/spec/src/new.ts\0packages/spec/src/old.ts\0 M apps/web/a.ts\0")).toEqual(["packages/spec/src/new.ts", "packages/spec/src/old.ts", "apps/web/a.ts"]);
  });

  it("counts the shared packages and the manifests as web inputs", () => {
    for (const p of ["packages/db/src/client.ts", "package-lock.json", "apps/web/next.config.ts", "tsconfig.base.json"]) expect(readByWebBuild(p)).toBe(true);
    for (const p of ["scripts/lib/build.mjs", "bench/soak.ts", "drizzle/0001_x.sql", "packages/db/src/client.test.ts", "apps/webhooks/x.ts", "apps/worker/src/main.ts"]) expect(readByWebBuild(p)).toBe(false);
  });
});
