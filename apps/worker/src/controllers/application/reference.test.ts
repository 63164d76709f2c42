import { describe, expect, it } from "vitest";
import { parseReference, repositoryKey, repositoryOf } from "./reference";

const HEX = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const DIGEST = `sha256:${HEX}`;

describe("parseReference (distribution/reference's ParseNormalizedNamed)", () => {
  it.each([
    // ref, domain, path, tag, digest
    ["nginx", "docker.io", "library/nginx", null, null],
    ["nginx:1.27", "docker.io", "library/nginx", "1.27", null],
    [`nginx@${DIGEST}`, "docker.io", "library/nginx", null, DIGEST],
    [`nginx:1@${DIGEST}`, "docker.io", "library/nginx", "1", DIGEST],
    ["library/nginx", "docker.io", "library/nginx", null, null],
    ["docker.io/nginx", "docker.io", "library/nginx", null, null],
    ["index.docker.io/nginx:1", "docker.io", "library/nginx", "1", null],
    ["index.docker.io/acme/private:1", "docker.io", "acme/private", "1", null],
    ["acme/private:1", "docker.io", "acme/private", "1", null],
    ["a/b/c:x", "docker.io", "a/b/c", "x", null],
    // The engine keeps registry-1.docker.io as a registry of its own name.
    ["registry-1.docker.io/acme/private:1", "registry-1.docker.io", "acme/private", "1", null],
    ["127.0.0.1:5000/private/web:v1", "127.0.0.1:5000", "private/web", "v1", null],
    [`127.0.0.1:5000/private/web@${DIGEST}`, "127.0.0.1:5000", "private/web", null, DIGEST],
    ["registry:5000/a/b", "registry:5000", "a/b", null, null],
    ["localhost/a:1", "localhost", "a", "1", null],
    ["localhost:5000/a", "localhost:5000", "a", null, null],
    ["Registry.A.com/acme/api:1", "Registry.A.com", "acme/api", "1", null],
    ["Acme/api", "Acme", "api", null, null],
    ["[::1]:5000/a/b:2", "[::1]:5000", "a/b", "2", null],
    ["ghcr.io/o/r", "ghcr.io", "o/r", null, null],
    ["a.b/c__d/e-f--g.h:T_1.x-y", "a.b", "c__d/e-f--g.h", "T_1.x-y", null],
    // One part with a colon: a tag, not a port.
    ["localhost:5000", "docker.io", "library/localhost", "5000", null],
    // Hex digits with a tag, or under a namespace, name a repository.
    ["deadbeef:1", "docker.io", "library/deadbeef", "1", null],
  ])("%s → %s / %s", (ref, domain, path, tag, digest) => {
    expect(parseReference(ref)).toEqual({ domain, path, tag, digest });
  });

  it.each([
    ["", "empty"],
    [HEX, "a 64-hex image id alone"],
    ["Nginx", "an upper-case path"],
    ["acme/Private", "an upper-case path below a namespace"],
    ["a//b", "an empty component"],
    ["a/b/", "a trailing slash"],
    ["-a", "a leading separator"],
    ["a-", "a trailing separator"],
    ["a...b", "three dots"],
    ["a___b", "three underscores"],
    ["a:", "an empty tag"],
    ["a:-x", "a tag starting with a dash"],
    [`a:${"x".repeat(129)}`, "a tag over 128 characters"],
    ["a@sha256:abc", "a short digest"],
    ["a@sha256", "a digest with no hex"],
    ["-x.com/a", "a host starting with a dash"],
    ["x.com:port/a", "a port that is no number"],
    ["[::1/a", "an unclosed IPv6 host"],
    [`r.io/${"a".repeat(252)}`, "a name over 255 characters"],
    ["a b", "a space"],
  ])("refuses %j (%s)", (ref) => {
    expect(parseReference(ref)).toBeNull();
  });

  it("takes linear time on a long name with a bad character at its end (the regex ports backtrack for minutes)", () => {
    const start = performance.now();
    for (const sep of ["a", "a-", "a_", "a."]) expect(parseReference(`${sep.repeat(100)}!`)).toBeNull();
    expect(performance.now() - start).toBeLessThan(100);
  });
});

describe("repositoryOf and repositoryKey", () => {
  it.each([
    // ref, repositoryOf (the engine's name), repositoryKey (what access checks compare)
    ["nginx", "docker.io/library/nginx", "docker.io/library/nginx"],
    [`library/nginx:1@${DIGEST}`, "docker.io/library/nginx", "docker.io/library/nginx"],
    ["index.docker.io/acme/private:1", "docker.io/acme/private", "docker.io/acme/private"],
    ["docker.io/acme/private:1", "docker.io/acme/private", "docker.io/acme/private"],
    [`acme/private@${DIGEST}`, "docker.io/acme/private", "docker.io/acme/private"],
    ["registry-1.docker.io/acme/private:1", "registry-1.docker.io/acme/private", "docker.io/acme/private"],
    ["REGISTRY-1.DOCKER.IO/nginx", "REGISTRY-1.DOCKER.IO/nginx", "docker.io/library/nginx"],
    ["Docker.IO/nginx", "Docker.IO/nginx", "docker.io/library/nginx"],
    ["Registry.A.com/acme/api:1", "Registry.A.com/acme/api", "registry.a.com/acme/api"],
    ["registry.a.com/acme/api:1", "registry.a.com/acme/api", "registry.a.com/acme/api"],
    ["registry.a.com:5000/acme/api:1", "registry.a.com:5000/acme/api", "registry.a.com:5000/acme/api"],
    [`registry.a.com:5000/acme/api:1@${DIGEST}`, "registry.a.com:5000/acme/api", "registry.a.com:5000/acme/api"],
    ["Nginx", null, null],
  ])("%s is %s, compared as %s", (ref, repo, key) => {
    expect(repositoryOf(ref)).toBe(repo);
    expect(repositoryKey(ref)).toBe(key);
  });
});
