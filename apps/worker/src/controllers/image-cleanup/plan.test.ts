import { describe, expect, it } from "vitest";
import { FakeEngine } from "@levelrail/docker/fake";
import { type ImagesDesired, type ImagesObserved, familiarTag, plan } from "./plan";
import { imageCleanupController } from "./reconcile";

const NOW = 1_000_000_000;
const GRACE = 600_000;
const OLD = NOW - 3_600_000;
const none = () => ({ ids: new Set<string>(), refs: new Set<string>() });
const img = (id: string, repoTags: string[], size = 100) => ({ id, repoTags, size });

type Row = [string, Partial<ImagesDesired>, Partial<ImagesObserved>, string[]];

describe("image collection plan", () => {
  const pulledA = [{ imageId: "sha256:a", ref: "reg:5000/shop/web:1", pulledAt: OLD }];
  it.each<Row>([
    ["a pulled image nothing needs goes", { pulled: pulledA }, { images: [img("sha256:a", ["reg:5000/shop/web:1"])] }, ["sha256:a"]],
    ["an image we did not pull stays", { pulled: [] }, { images: [img("sha256:a", ["reg:5000/shop/web:1"])] }, []],
    ["a kept release's image stays (rollback target)", { pulled: pulledA, needed: { ids: new Set(["sha256:a"]), refs: new Set() } }, { images: [img("sha256:a", ["reg:5000/shop/web:1"])] }, []],
    ["a pending release naming its tag keeps it before it pins the id", { pulled: pulledA, needed: { ids: new Set(), refs: new Set(["reg:5000/shop/web:1"]) } }, { images: [img("sha256:a", ["reg:5000/shop/web:1"])] }, []],
    ["an image any container uses stays, ours or not", { pulled: pulledA }, { images: [img("sha256:a", ["reg:5000/shop/web:1"])], inUse: new Set(["sha256:a"]) }, []],
    ["an image pulled within the grace period stays", { pulled: [{ ...pulledA[0]!, pulledAt: NOW - 1000 }] }, { images: [img("sha256:a", ["reg:5000/shop/web:1"])] }, []],
    ["an operator's own tag on it makes it theirs too", { pulled: pulledA }, { images: [img("sha256:a", ["reg:5000/shop/web:1", "mine:keep"])] }, []],
    ["an untagged image we pulled (its tag moved on) goes", { pulled: pulledA }, { images: [img("sha256:a", [])] }, ["sha256:a"]],
    ["a Docker Hub reference matches the engine's short tag", { pulled: [{ imageId: "sha256:a", ref: "docker.io/library/nginx", pulledAt: OLD }] }, { images: [img("sha256:a", ["nginx:latest"])] }, ["sha256:a"]],
    ["an image gone from the engine is not removed", { pulled: pulledA }, { images: [] }, []],
  ])("%s", (_, d, o, removed) => {
    const p = plan({ needed: none(), pulled: [], ...d }, { images: [], inUse: new Set(), now: NOW, ...o }, GRACE);
    expect(p.remove.map((r) => r.id)).toEqual(removed);
  });

  // A build records its image like a pull (`levelrail.invalid/<short>/<serviceId>:<commit>`): kept while a kept release needs it, removed after.
  const BUILT = "lrt/3c9d7e21-5b4a-4f6e-8d2c-1a2b3c4d5e6f:0123456789abcdef0123456789abcdef01234567";
  const built = [{ imageId: "sha256:b", ref: BUILT, pulledAt: OLD }];
  it.each<Row>([
    ["a built image no kept release needs goes", { pulled: built }, { images: [img("sha256:b", [BUILT])] }, ["sha256:b"]],
    ["a built image a kept release pins stays (rollback, promote)", { pulled: built, needed: { ids: new Set(["sha256:b"]), refs: new Set() } }, { images: [img("sha256:b", [BUILT])] }, []],
    ["a built image a pending release names stays", { pulled: built, needed: { ids: new Set(), refs: new Set([BUILT]) } }, { images: [img("sha256:b", [BUILT])] }, []],
    ["a build of the same commit again (cached: same id) within the grace period stays", { pulled: [{ ...built[0]!, pulledAt: NOW - 1000 }] }, { images: [img("sha256:b", [BUILT])] }, []],
  ])("%s", (_, d, o, removed) => {
    const p = plan({ needed: none(), pulled: [], ...d }, { images: [], inUse: new Set(), now: NOW, ...o }, GRACE);
    expect(p.remove.map((r) => r.id)).toEqual(removed);
  });

  it("forgets the records of images the engine no longer has", () => {
    const p = plan({ needed: none(), pulled: pulledA }, { images: [], inUse: new Set(), now: NOW }, GRACE);
    expect(p.forget).toEqual([{ imageId: "sha256:a", ref: "reg:5000/shop/web:1" }]);
  });

  it("an image pulled as two references is untagged of one first, then removed by id", () => {
    const pulled = [...pulledA, { imageId: "sha256:a", ref: "reg:5000/shop/web:latest", pulledAt: OLD }];
    const p = plan({ needed: none(), pulled }, { images: [img("sha256:a", ["reg:5000/shop/web:1", "reg:5000/shop/web:latest"])], inUse: new Set(), now: NOW }, GRACE);
    expect(p.remove).toEqual([{ id: "sha256:a", untag: ["reg:5000/shop/web:latest"], size: 100, refs: ["reg:5000/shop/web:1", "reg:5000/shop/web:latest"] }]);
  });

  it.each([
    ["nginx", "nginx:latest"],
    ["docker.io/library/nginx:1.27", "nginx:1.27"],
    ["docker.io/me/app:2", "me/app:2"],
    ["127.0.0.1:5000/a/b:3", "127.0.0.1:5000/a/b:3"],
    ["localhost:5000/a", "localhost:5000/a:latest"],
  ])("%s is listed as %s", (ref, tag) => expect(familiarTag(ref)).toBe(tag));
  it("a digest reference is no tag", () => expect(familiarTag("nginx@sha256:abc")).toBeNull());
});

describe("image cleanup controller", () => {
  it("removes only the pulled image nothing needs, forgets its record, and leaves one a container uses", async () => {
    const e = new FakeEngine();
    e.images.set("reg/web:1", "sha256:old");
    e.images.set("reg/web:2", "sha256:used");
    e.images.set("local/web:1", "sha256:local");
    e.imageSizes.set("sha256:old", 2048);
    await e.createContainer({ name: "theirs", Image: "reg/web:2" });
    let pulled = [
      { imageId: "sha256:old", ref: "reg/web:1", pulledAt: OLD },
      { imageId: "sha256:used", ref: "reg/web:2", pulledAt: OLD },
      { imageId: "sha256:gone", ref: "reg/web:0", pulledAt: OLD },
    ];
    const removed: number[] = [];
    const c = imageCleanupController({
      runtime: e,
      store: {
        neededImages: async () => none(),
        pulledImages: async () => pulled,
        forgetPulled: async (rows) => void (pulled = pulled.filter((p) => !rows.some((r) => r.imageId === p.imageId && r.ref === p.ref))),
      },
      keepReleases: 3,
      graceMs: GRACE,
      log: () => {},
      onRemoved: (b) => removed.push(b),
      now: () => NOW,
    });
    await c.reconcile("images");
    expect([...e.images.keys()].sort()).toEqual(["local/web:1", "reg/web:2"]);
    expect(pulled.map((p) => p.ref)).toEqual(["reg/web:2"]);
    expect(removed).toEqual([2048]);
  });
});
