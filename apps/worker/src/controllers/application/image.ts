import type { RegistryAuth, Runtime } from "@levelrail/docker";
import { isBareImageId } from "@levelrail/spec/service";
import { repositoryKey } from "./reference";

/** Kubernetes' convention: `:latest` or no tag is pulled on every Deploy; any other tag or a digest only when missing. */
export type PullPolicy = "always" | "if-not-present";

export function pullPolicy(ref: string): PullPolicy {
  if (ref.includes("@")) return "if-not-present";
  const lastSegment = ref.slice(ref.lastIndexOf("/") + 1);
  const colon = lastSegment.lastIndexOf(":");
  if (colon < 0) return "always";
  return lastSegment.slice(colon + 1) === "latest" ? "always" : "if-not-present";
}

/** Whether a service (or a database) may run an image the engine already has: yes, no (why), or the image left the engine meanwhile. */
export type CachedImageAccess = { kind: "ok" } | { kind: "refused"; message: string } | { kind: "gone" };

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
  who: AccessSubject = SERVICE,
): Promise<CachedImageAccess> {
  // An id or id prefix (a row stored before the API refused it) names no repository to ask.
  const repository = isBareImageId(ref) ? null : repositoryKey(ref);
  if (repository === null) return { kind: "refused", message: `image ${ref} names no repository (an image id or a prefix of one): name the image by its repository, like registry.example.com/shop:1.4.2` };
  const digests = await runtime.imageRepoDigests(imageId);
  if (digests === null) return { kind: "gone" };
  // Compared as the engine resolves names: `index.docker.io/a/b`, `docker.io/a/b` and `a/b` are one repository.
  if (!digests.some((d) => repositoryKey(d) === repository)) return { kind: "ok" };
  const access = await runtime.registryAccess(ref, auth);
  if (access.ok) return { kind: "ok" };
  const login = auth ? `with this ${who.noun}'s registry credential` : "without a registry credential";
  return {
    kind: "refused",
    message: `image ${ref} is on this host, but its registry did not confirm this ${who.noun} may pull it ${login} (${access.reason}): ${who.remedy(ref)}`,
  };
}

/** Who asks for a cached image, for the refusal's words. */
export interface AccessSubject {
  noun: string;
  remedy: (ref: string) => string;
}

const SERVICE: AccessSubject = { noun: "service", remedy: (ref) => `attach a registry credential that may pull ${ref}, then deploy again` };
