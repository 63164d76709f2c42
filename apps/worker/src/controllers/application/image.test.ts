import { describe, expect, it } from "vitest";
import { FakeEngine } from "@levelrail/docker/fake";
import { Labels, builtImageLabels, builtImageName } from "@levelrail/spec/naming";
import { type ImageOwner, RegistryConfirmations, cachedImageAccess, pullPolicy } from "./image";
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

const OWNER: ImageOwner = { shortName: "lr", orgId: "org-a", orgOfService: async () => "org-a" };

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
    const access = await cachedImageAccess(engine, ref, ID, null, OWNER);
    expect(access.kind).toBe("refused");
    expect(access.kind === "refused" && access.message).toContain("did not confirm this service may pull it without a registry credential");
  });

  it("allows a login the registry accepts", async () => {
    const engine = engineWithPrivateImage();
    const auth = { username: "a", password: PASSWORD, serveraddress: "docker.io" };
    expect(await cachedImageAccess(engine, "index.docker.io/acme/private:1", ID, auth, OWNER)).toEqual({ kind: "ok" });
  });

  it.each([ID, "a1", "sha256:a", "A1"])("refuses %s, an image id or a prefix of one, without asking anyone", async (ref) => {
    const engine = engineWithPrivateImage();
    const access = await cachedImageAccess(engine, ref, ID, null, OWNER);
    expect(access).toMatchObject({ kind: "refused", message: expect.stringContaining("names no repository") });
  });

  it("names a database in its refusal when a database asks", async () => {
    const who = { noun: "database", remedy: () => "use an image anyone may pull" };
    const access = await cachedImageAccess(engineWithPrivateImage(), "acme/private:1", ID, null, OWNER, who);
    expect(access.kind === "refused" && access.message).toContain("did not confirm this database may pull it without a registry credential");
  });
});

describe("built images belong to their organization", () => {
  const SHORT = "lr";
  const A_SERVICE = "11111111-1111-4111-8111-111111111111";
  const B_SERVICE = "22222222-2222-4222-8222-222222222222";
  const COMMIT = "c".repeat(40);
  const ID = "sha256:b1";
  const orgs: Record<string, string> = { [A_SERVICE]: "org-a", [B_SERVICE]: "org-b" };
  const asker = (orgId: string): ImageOwner => ({ shortName: SHORT, orgId, orgOfService: async (id) => orgs[id] ?? null });
  /** The engine after org A's build: the image under its built name, with the labels a build gives it (`org: false`: one built before the organization label). */
  function engineWithBuilt(name: string, o: { org: boolean } = { org: true }): FakeEngine {
    const engine = new FakeEngine();
    engine.images.set(name, ID);
    const labels = builtImageLabels(SHORT, { orgId: "org-a", serviceId: A_SERVICE, commit: COMMIT, source: "https://git.example/a.git" });
    if (!o.org) delete labels[Labels.org];
    engine.imageLabels.set(ID, labels);
    return engine;
  }
  const refusedAsMissing = (ref: string) => ({ kind: "refused", message: expect.stringMatching(new RegExp(`^image ${ref.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} does not exist on this host \\(no such image`)) });

  it.each([
    ["the new name", builtImageName(SHORT, A_SERVICE, COMMIT), { org: true }],
    ["the old name", `${SHORT}/${A_SERVICE}:${COMMIT}`, { org: false }],
    ["the old name as Docker Hub spells it", `docker.io/${SHORT}/${A_SERVICE}:${COMMIT}`, { org: false }],
  ] as const)("org A's own service may run its built image under %s", async (_, name, o) => {
    expect(await cachedImageAccess(engineWithBuilt(name, o), name, ID, null, asker("org-a"))).toEqual({ kind: "ok" });
  });

  it.each([
    ["the new name", builtImageName(SHORT, A_SERVICE, COMMIT), { org: true }],
    ["the old name, built before the organization label", `${SHORT}/${A_SERVICE}:${COMMIT}`, { org: false }],
  ] as const)("org B naming org A's built image under %s is told it does not exist", async (_, name, o) => {
    expect(await cachedImageAccess(engineWithBuilt(name, o), name, ID, null, asker("org-b"))).toEqual(refusedAsMissing(name));
  });

  it("a name in the built namespace whose service is another organization's is refused, whatever the image's labels", async () => {
    const name = builtImageName(SHORT, A_SERVICE, COMMIT);
    const engine = new FakeEngine();
    engine.images.set(name, ID);
    expect(await cachedImageAccess(engine, name, ID, null, asker("org-b"))).toEqual(refusedAsMissing(name));
    // A service that no longer exists owns nothing.
    const gone = builtImageName(SHORT, "33333333-3333-4333-8333-333333333333", COMMIT);
    engine.images.set(gone, ID);
    expect(await cachedImageAccess(engine, gone, ID, null, asker("org-a"))).toEqual(refusedAsMissing(gone));
  });
});

describe("registry confirmations kept a short while", () => {
  const ID = "sha256:c1";
  const REF = "reg.example/private/web:1";
  const A = { username: "a", password: "org-a-password", serveraddress: "reg.example" };
  function engine(): FakeEngine & { asked: number } {
    const e = Object.assign(new FakeEngine(), { asked: 0 });
    e.images.set(REF, ID);
    e.repoDigests.set(ID, [`reg.example/private/web@sha256:${"c".repeat(64)}`]);
    e.registry.set(REF, ID);
    e.logins.set(REF, A.password);
    const ask = e.registryAccess.bind(e);
    e.registryAccess = async (ref, auth) => {
      e.asked++;
      return ask(ref, auth);
    };
    return e;
  }

  it("a yes for one login is reused within its time; another login (or none) is asked itself and its no never kept", async () => {
    let now = 0;
    const confirmations = new RegistryConfirmations(60_000, 100, () => now);
    const owner = { ...OWNER, confirmations };
    const e = engine();
    expect(await cachedImageAccess(e, REF, ID, A, owner)).toEqual({ kind: "ok" });
    expect(await cachedImageAccess(e, REF, ID, A, owner)).toEqual({ kind: "ok" });
    expect(e.asked).toBe(1);
    // Another organization: no login, or a wrong password, is asked and refused, every time.
    for (const other of [null, { ...A, password: "guess" }, null]) expect((await cachedImageAccess(e, REF, ID, other, owner)).kind).toBe("refused");
    expect(e.asked).toBe(4);
    // The registry stops accepting A's login: refused once its yes is older than the time kept.
    e.logins.set(REF, "rotated");
    now = 59_999;
    expect((await cachedImageAccess(e, REF, ID, A, owner)).kind).toBe("ok");
    now = 60_000;
    expect((await cachedImageAccess(e, REF, ID, A, owner)).kind).toBe("refused");
  });
});
