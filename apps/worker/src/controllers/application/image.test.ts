import { describe, expect, it } from "vitest";
import { pullPolicy, repositoryOf } from "./image";

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
