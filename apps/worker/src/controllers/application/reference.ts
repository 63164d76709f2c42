/**
 * Image references as the engine reads them: the grammar of distribution/reference (the Go package
 * the engine parses every reference with), and its normalization (`ParseNormalizedNamed`).
 *
 * Hand-written on purpose: the npm ports of that package compile its grammar to nested regular
 * expressions whose separator `[-]*` may match nothing, so a long name with one bad character
 * backtracks for minutes (@swimlane/docker-reference took 78 s for 18 letters and a `!`). Here each
 * part is cut at its delimiters first and checked by a small regular expression without nested
 * repetition, so the time is linear in the length.
 */

/** A reference, normalized as the engine does: `nginx:1` → domain `docker.io`, path `library/nginx`, tag `1`. */
export interface ImageReference {
  /** The registry host as written (with its port), but Docker Hub's legacy `index.docker.io` is `docker.io`. */
  domain: string;
  /** The repository path within the registry (`library/` added for a one-part Docker Hub name). */
  path: string;
  tag: string | null;
  digest: string | null;
}

const NAME_MAX = 255;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/;
const IPV6 = /^\[[a-fA-F0-9:]+\]$/;
const PORT = /^[0-9]+$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
const IMAGE_ID = /^[a-f0-9]{64}$/;

const DOCKER_HUB = "docker.io";
/** Names Docker Hub goes by: the engine folds `index.docker.io` into `docker.io`; `registry-1.docker.io` is its API host. */
const HUB_ALIASES = new Set(["docker.io", "index.docker.io", "registry-1.docker.io"]);

function validDomain(domain: string): boolean {
  const close = domain.startsWith("[") ? domain.indexOf("]") : -1;
  const colon = close >= 0 ? (domain[close + 1] === ":" ? close + 1 : -1) : domain.lastIndexOf(":");
  if (close >= 0 && colon < 0 && close !== domain.length - 1) return false;
  const host = colon < 0 ? domain : domain.slice(0, colon);
  if (colon >= 0 && !PORT.test(domain.slice(colon + 1))) return false;
  return close >= 0 ? IPV6.test(host) : DOMAIN_NAME.test(host);
}

/**
 * Parses a reference as `ParseNormalizedNamed` does, or null when the engine would refuse it (a
 * bad character, an upper-case path, a 64-hex id alone). `index.docker.io/x` is `docker.io/library/x`.
 */
export function parseReference(ref: string): ImageReference | null {
  if (ref.length > 1024 || IMAGE_ID.test(ref)) return null;
  const at = ref.indexOf("@");
  const digest = at < 0 ? null : ref.slice(at + 1);
  if (digest !== null && !DIGEST.test(digest)) return null;
  const nameTag = at < 0 ? ref : ref.slice(0, at);
  const colon = nameTag.lastIndexOf(":");
  const hasTag = colon > nameTag.lastIndexOf("/");
  const tag = hasTag ? nameTag.slice(colon + 1) : null;
  if (tag !== null && !TAG.test(tag)) return null;
  const name = hasTag ? nameTag.slice(0, colon) : nameTag;
  if (name.length === 0 || name.length > NAME_MAX) return null;

  const slash = name.indexOf("/");
  const first = slash < 0 ? "" : name.slice(0, slash);
  // The first part is a registry when it looks like a host (a dot, a port, localhost) or is not lower case.
  const isDomain = slash >= 0 && (first === "localhost" || /[.:]/.test(first) || first !== first.toLowerCase());
  let domain = isDomain ? first : DOCKER_HUB;
  let path = isDomain ? name.slice(slash + 1) : name;
  if (isDomain && !validDomain(domain)) return null;
  if (!path.split("/").every((c) => PATH_COMPONENT.test(c))) return null;
  if (domain === "index.docker.io") domain = DOCKER_HUB;
  if (domain === DOCKER_HUB && !path.includes("/")) path = `library/${path}`;
  return { domain, path, tag, digest };
}

/**
 * The repository a reference names, fully qualified as the engine normalizes it
 * (`nginx:1` → `docker.io/library/nginx`, `127.0.0.1:5000/a/b@sha256:…` → `127.0.0.1:5000/a/b`);
 * null when the engine would refuse the reference.
 */
export function repositoryOf(ref: string): string | null {
  const r = parseReference(ref);
  return r ? `${r.domain}/${r.path}` : null;
}

/**
 * The key two references are compared by when one may be the other's cached image: the repository,
 * its registry host in lower case (DNS ignores case, and so does the registry a pull reaches) and
 * every name of Docker Hub as `docker.io`. Wider than the engine's own equality on purpose: two
 * references it keeps apart but this folds together only cost a registry lookup.
 */
export function repositoryKey(ref: string): string | null {
  const r = parseReference(ref);
  if (!r) return null;
  const domain = r.domain.toLowerCase();
  if (!HUB_ALIASES.has(domain)) return `${domain}/${r.path}`;
  return `${DOCKER_HUB}/${r.path.includes("/") ? r.path : `library/${r.path}`}`;
}
