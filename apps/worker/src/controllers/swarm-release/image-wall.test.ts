import { describe, expect, it } from "vitest";
import { FakeEngine } from "@levelrail/docker/fake";
import { FakeSwarm } from "@levelrail/docker/swarm/fake";
import { Labels, builtImageLabels, builtImageName, networkName, noSuchImage } from "@levelrail/spec/naming";
import { type SwarmReleaseDeps, reconcileSwarmRelease } from "./reconcile";
import { TestReleases } from "./testing";

// The image wall on a swarm, on the fake swarm and a fake manager engine: a release of a private
// image whose registry does not confirm this organization's login never becomes a swarm service
// with the tag left unpinned (a node holding another organization's pulled copy would run it).

const SHORT = "lr";
const REF = "reg.example/private/web:v1";
const DIGEST = `sha256:${"d".repeat(64)}`;
const PASSWORD = "org-a-registry-password";
const A_SERVICE = "11111111-1111-4111-8111-111111111111";
const B_SERVICE = "22222222-2222-4222-8222-222222222222";

function setup(o: { managerHasPull?: boolean; registryHas?: boolean } = {}) {
  const swarm = new FakeSwarm();
  swarm.addNode({ id: "m", hostname: "node-a", address: "10.0.0.1" });
  swarm.addNode({ id: "w", hostname: "node-b", address: "10.0.0.2", role: "worker" });
  swarm.images.set(REF, { entrypoint: ["/bin/web"], cmd: [] });
  // The swarm's registry look-up pins only for a login the registry accepts: the tests give it the
  // digest only where the login is A's.
  const engine = new FakeEngine();
  engine.registry.set(REF, "sha256:img-a");
  engine.logins.set(REF, PASSWORD);
  if (o.managerHasPull) {
    engine.images.set(REF, "sha256:img-a");
    engine.repoDigests.set("sha256:img-a", [`reg.example/private/web@${DIGEST}`]);
  }
  if (o.registryHas) swarm.registry.set(REF, DIGEST);
  const releases = new TestReleases({ shortName: SHORT, serviceId: B_SERVICE, appId: "app-b", appName: "shop", registryAuth: null, replicas: 2 });
  const deps: SwarmReleaseDeps = {
    shortName: SHORT,
    swarm,
    images: engine,
    serviceOrgs: async (id) => ({ [A_SERVICE]: "org-a", [B_SERVICE]: "org-b" })[id] ?? null,
    async ensureNetwork(appId) {
      await swarm.createOverlayNetwork({ name: networkName(SHORT, appId), labels: {}, subnet: null, gateway: null, encrypted: false, mtu: null });
    },
    prober: { probe: async () => ({ ready: true, detail: "HTTP 200" }) },
    status: releases,
    drainMs: 0,
  };
  const input = (image: string) => ({ ...releases.input("rel-b", image), orgId: "org-b" });
  const made = () => [...swarm.services.values()].filter((s) => s.spec.labels[Labels.service] === B_SERVICE).map((s) => s.spec.image);
  return { swarm, engine, deps, releases, input, made };
}

describe("a release's image on a swarm is checked as on one engine", () => {
  it("the manager holds org A's pulled copy; org B without a login the registry accepts: the release fails as on one engine, no service is made", async () => {
    const t = setup({ managerHasPull: true });
    const pass = await reconcileSwarmRelease(t.deps, t.input(REF));
    expect(pass.step).toBe("fail");
    expect(t.releases.releases.get("rel-b")).toMatchObject({
      outcome: "failed",
      message: expect.stringContaining(`image ${REF} is on this host, but its registry did not confirm this service may pull it without a registry credential`),
    });
    expect(t.made()).toEqual([]);
  });

  it("only a node holds it and the registry refuses org B's login: the release fails with the pull's error, never with the tag unpinned", async () => {
    const t = setup();
    const pass = await reconcileSwarmRelease(t.deps, t.input(REF));
    expect(pass.step).toBe("fail");
    expect(t.releases.releases.get("rel-b")).toMatchObject({ outcome: "failed", message: `image ${REF} could not be pulled: unauthorized: authentication required` });
    expect(t.made()).toEqual([]);
  });

  it("a login the registry accepts: the service is made pinned to the registry's digest", async () => {
    const t = setup({ registryHas: true });
    const pass = await reconcileSwarmRelease(t.deps, t.input(REF));
    expect(pass.step).toBe("create");
    expect(t.made()).toEqual([`${REF}@${DIGEST}`]);
  });

  it("an image built on the manager's host (no registry has it) runs as named", async () => {
    const t = setup();
    t.engine.images.set("levelrail-test/web:v1", "sha256:host");
    t.swarm.images.set("levelrail-test/web:v1", { entrypoint: ["/bin/web"], cmd: [] });
    expect((await reconcileSwarmRelease(t.deps, t.input("levelrail-test/web:v1"))).step).toBe("create");
    expect(t.made()).toEqual(["levelrail-test/web:v1"]);
  });

  it("org A's built image is refused to org B as an image that does not exist; one not on the manager is never left to the nodes", async () => {
    const t = setup();
    const name = builtImageName(SHORT, A_SERVICE, "c".repeat(40));
    t.engine.images.set(name, "sha256:built");
    t.engine.imageLabels.set("sha256:built", builtImageLabels(SHORT, { orgId: "org-a", serviceId: A_SERVICE, commit: "c".repeat(40), source: "https://git.example/a.git" }));
    expect((await reconcileSwarmRelease(t.deps, t.input(name))).step).toBe("fail");
    expect(t.releases.releases.get("rel-b")).toMatchObject({ outcome: "failed", message: noSuchImage(name) });
    const absent = builtImageName(SHORT, B_SERVICE, "e".repeat(40));
    const u = setup();
    expect((await reconcileSwarmRelease(u.deps, u.input(absent))).step).toBe("fail");
    expect(u.releases.releases.get("rel-b")).toMatchObject({ outcome: "failed", message: noSuchImage(absent) });
    expect([...t.made(), ...u.made()]).toEqual([]);
  });

  it("an image org B built before, under the old name (Docker Hub's reading), reaches the nodes under the unresolvable name: a node without it never asks Docker Hub", async () => {
    const t = setup();
    const commit = "f".repeat(40);
    const old = `${SHORT}/${B_SERVICE}:${commit}`;
    t.engine.images.set(old, "sha256:old");
    t.engine.imageLabels.set("sha256:old", { "levelrail.managed": "true", "levelrail.instance": SHORT, "levelrail.service": B_SERVICE, "levelrail.commit": commit });
    expect((await reconcileSwarmRelease(t.deps, t.input(old))).step).toBe("create");
    const renamed = builtImageName(SHORT, B_SERVICE, commit);
    expect(t.made()).toEqual([renamed]);
    expect(await t.engine.imageId(renamed)).toBe("sha256:old");
  });
});
