import { describe, expect, it } from "vitest";
import { FakeEngine } from "@levelrail/docker/fake";
import { cachedImageAccess, pullPolicy } from "./image";
import { repositoryOf } from "./reference";

const DIGEST = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

describe("pullPolicy", () => {
  it.each([
    "busybox",
    "busybox:latest",
    "library/busybox",
    "registry:5000/a/b",
    "registry:5000/a/b:latest",
    "ghcr.io/o/r",
  ])("pulls %s on every deploy (no tag or :latest)", (ref) => {
    expect(pullPolicy(ref)).toBe("always");
  });

  it.each([
    "x:1.2",
    "registry:5000/a/b:1",
    `x@${DIGEST}`,
    `registry:5000/a/b:1@${DIGEST}`,
    `registry:5000/a/b:latest@${DIGEST}`,
    "busybox:latest-musl",
  ])("pulls %s only when missing (a fixed tag or a digest)", (ref) => {
    expect(pullPolicy(ref)).toBe("if-not-present");
  });
});

describe("repositoryOf", () => {
  it.each([
    ["nginx", "docker.io/library/nginx"],
    ["nginx:1.27", "docker.io/library/nginx"],
    [`nginx@${DIGEST}`, "docker.io/library/nginx"],
    ["levelrail-test/web:v1", "docker.io/levelrail-test/web"],
    ["127.0.0.1:5000/private/web:v1", "127.0.0.1:5000/private/web"],
    [`127.0.0.1:5000/private/web@${DIGEST}`, "127.0.0.1:5000/private/web"],
    [`registry:5000/a/b:1@${DIGEST}`, "registry:5000/a/b"],
    ["localhost/a:1", "localhost/a"],
    ["ghcr.io/o/r", "ghcr.io/o/r"],
  ])("%s is in %s", (ref, repo) => {
    expect(repositoryOf(ref)).toBe(repo);
  });
});

describe("cachedImageAccess", () => {
  const ID = "sha256:a1";
  const PASSWORD = "org-a-registry-password";
  /** Organization A pulled its private Docker Hub image `acme/private:1` with its login: the engine records the familiar name. */
  function engineWithPrivateImage(): FakeEngine {
    const engine = new FakeEngine();
    engine.images.set("acme/private:1", ID);
    engine.repoDigests.set(ID, [`acme/private@${DIGEST}`]);
    for (const ref of ["acme/private:1", "docker.io/acme/private:1", "index.docker.io/acme/private:1", "registry-1.docker.io/acme/private:1"]) {
      engine.registry.set(ref, ID);
      engine.logins.set(ref, PASSWORD);
    }
    return engine;
  }

  it.each([
    "acme/private:1",
    "docker.io/acme/private:1",
    "index.docker.io/acme/private:1",
    "registry-1.docker.io/acme/private:1",
    "Docker.IO/acme/private:1",
    `index.docker.io/acme/private@${DIGEST}`,
  ])("asks the registry for %s, whichever name of Docker Hub it uses: refused without a login", async (ref) => {
    const engine = engineWithPrivateImage();
    const access = await cachedImageAccess(engine, ref, ID, null);
    expect(access.kind).toBe("refused");
    expect(access.kind === "refused" && access.message).toContain("did not confirm this service may pull it without a registry credential");
  });

  it("allows a login the registry accepts", async () => {
    const engine = engineWithPrivateImage();
    const auth = { username: "a", password: PASSWORD, serveraddress: "docker.io" };
    expect(await cachedImageAccess(engine, "index.docker.io/acme/private:1", ID, auth)).toEqual({ kind: "ok" });
  });

  it.each([ID, "a1", "sha256:a", "A1"])("refuses %s, an image id or a prefix of one, without asking anyone", async (ref) => {
    const engine = engineWithPrivateImage();
    const access = await cachedImageAccess(engine, ref, ID, null);
    expect(access).toMatchObject({ kind: "refused", message: expect.stringContaining("names no repository") });
  });

  it("names a database in its refusal when a database asks", async () => {
    const who = { noun: "database", remedy: () => "use an image anyone may pull" };
    const access = await cachedImageAccess(engineWithPrivateImage(), "acme/private:1", ID, null, who);
    expect(access.kind === "refused" && access.message).toContain("did not confirm this database may pull it without a registry credential");
  });
});
