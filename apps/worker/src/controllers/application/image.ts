import type { RegistryAuth, Runtime } from "@levelrail/docker";

/** Kubernetes' convention: `:latest` or no tag is pulled on every Deploy; any other tag or a digest only when missing. */
export type PullPolicy = "always" | "if-not-present";

export function pullPolicy(ref: string): PullPolicy {
  if (ref.includes("@")) return "if-not-present";
  const lastSegment = ref.slice(ref.lastIndexOf("/") + 1);
  const colon = lastSegment.lastIndexOf(":");
  if (colon < 0) return "always";
  return lastSegment.slice(colon + 1) === "latest" ? "always" : "if-not-present";
}

/** Whether a service may run an image the engine already has: yes, no (why), or the image left the engine meanwhile. */
export type CachedImageAccess = { kind: "ok" } | { kind: "refused"; message: string } | { kind: "gone" };

/**
 * The repository a reference names, fully qualified as the engine normalizes it
 * (`nginx:1` → `docker.io/library/nginx`, `127.0.0.1:5000/a/b@sha256:…` → `127.0.0.1:5000/a/b`).
 */
export function repositoryOf(ref: string): string {
  const name = ref.split("@")[0]!;
  const slash = name.lastIndexOf("/");
  const colon = name.lastIndexOf(":");
  const repo = colon > slash ? name.slice(0, colon) : name;
  const first = repo.split("/")[0]!;
  const hasDomain = repo.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  if (hasDomain) return repo;
  return `docker.io/${repo.includes("/") ? repo : `library/${repo}`}`;
}

/**
 * The engine's cache is shared by every organization: an image pulled with one organization's
 * registry login must not run for another that names the same reference. An image that came from
 * `ref`'s own repository (a RepoDigest of it: pulled under that name) is usable only if that registry
 * lets this service's own login (or none) pull `ref` now: a manifest lookup through the engine,
 * nothing downloaded. An image built on the host (no RepoDigests), or a name the host gave it (a tag
 * in a repository it was never pulled from), came from no registry under that name and stays usable.
 */
export async function cachedImageAccess(
  runtime: Pick<Runtime, "imageRepoDigests" | "registryAccess">,
  ref: string,
  imageId: string,
  auth: RegistryAuth | null,
): Promise<CachedImageAccess> {
  const digests = await runtime.imageRepoDigests(imageId);
  if (digests === null) return { kind: "gone" };
  const repository = repositoryOf(ref);
  if (!digests.some((d) => repositoryOf(d) === repository)) return { kind: "ok" };
  const access = await runtime.registryAccess(ref, auth);
  if (access.ok) return { kind: "ok" };
  const login = auth ? "with this service's registry credential" : "without a registry credential";
  return {
    kind: "refused",
    message: `image ${ref} is on this host, but its registry did not confirm this service may pull it ${login} (${access.reason}): attach a registry credential that may pull ${ref}, then deploy again`,
  };
}
