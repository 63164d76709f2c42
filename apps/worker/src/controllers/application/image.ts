import { createHash } from "node:crypto";
import type { RegistryAuth, Runtime } from "@levelrail/docker";
import { Labels, builtImageServiceId, noSuchImage } from "@levelrail/spec/naming";
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
 * Who asks for an image: the organization, and how the organization of a built image's service is
 * found (a built image belongs to its service's organization).
 */
export interface ImageOwner {
  shortName: string;
  orgId: string;
  /** The service's organization; null when there is no such service. Absent: only a built image's own label decides. */
  orgOfService?: (serviceId: string) => Promise<string | null>;
  /** Registry confirmations kept a short while (a deploy's check then asks no registry); absent: every check asks. */
  confirmations?: RegistryConfirmations;
}

/**
 * The registry's yes for one login, one reference and one cached image, kept for `ttlMs`: a deploy
 * soon after another of the same image asks no registry. Only a yes is kept, under a hash of the
 * login's password too, so another login (another organization's, or a wrong one) is asked itself;
 * a login the registry stops accepting is refused again once its yes is older than `ttlMs`.
 */
export class RegistryConfirmations {
  private readonly yes = new Map<string, number>();
  constructor(
    private readonly ttlMs = 60_000,
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  private key(ref: string, imageId: string, auth: RegistryAuth | null): string {
    const login = auth ? `${auth.serveraddress}\n${auth.username}\n${auth.password}` : "";
    return createHash("sha256").update(`${ref}\n${imageId}\n${login}`).digest("hex");
  }

  has(ref: string, imageId: string, auth: RegistryAuth | null): boolean {
    const k = this.key(ref, imageId, auth);
    const at = this.yes.get(k);
    if (at === undefined) return false;
    if (this.now() - at < this.ttlMs) return true;
    this.yes.delete(k);
    return false;
  }

  add(ref: string, imageId: string, auth: RegistryAuth | null): void {
    if (this.yes.size >= this.max) this.yes.delete(this.yes.keys().next().value!);
    this.yes.set(this.key(ref, imageId, auth), this.now());
  }
}

/**
 * Whether `owner`'s organization may use the image `ref` names (the engine's `imageId`) as a built
 * image: an image built here carries its organization's label (and its service's), and a name in
 * the built-image namespace names its service; either one of another organization (or of no
 * service left) is refused with the answer for an image that does not exist, so one organization
 * never learns what another built. Any other image is not a built one: ok here.
 */
export async function builtImageAccess(
  runtime: Pick<Runtime, "imageOrigin">,
  ref: string,
  imageId: string,
  owner: ImageOwner,
): Promise<CachedImageAccess> {
  const origin = await runtime.imageOrigin(imageId);
  return origin === null ? { kind: "gone" } : builtAccessOf(origin.labels, ref, owner);
}

async function builtAccessOf(labels: Readonly<Record<string, string>>, ref: string, owner: ImageOwner): Promise<CachedImageAccess> {
  const refused: CachedImageAccess = { kind: "refused", message: noSuchImage(ref) };
  // Our build's labels override the Dockerfile's; labels on any other image can only refuse, never allow.
  const built = labels[Labels.managed] === "true" && labels[Labels.instance] === owner.shortName && labels[Labels.commit] !== undefined;
  const labelOrg = built ? labels[Labels.org] : undefined;
  if (labelOrg !== undefined && labelOrg !== owner.orgId) return refused;
  const services = new Set<string>();
  const named = builtImageServiceId(owner.shortName, ref);
  if (named) services.add(named);
  const labelService = built ? labels[Labels.service] : undefined;
  // An image built before the organization label: its service's organization decides.
  if (labelService !== undefined && labelOrg === undefined) services.add(labelService);
  if (labelOrg !== undefined && labelService !== undefined) services.delete(labelService);
  for (const id of services) {
    const org = owner.orgOfService ? await owner.orgOfService(id) : null;
    if (org !== owner.orgId) return refused;
  }
  return { kind: "ok" };
}

/**
 * The engine's cache is shared by every organization: an image pulled with one organization's
 * registry login must not run for another that names the same reference. An image that came from
 * `ref`'s own repository (a RepoDigest of it: pulled under that name) is usable only if that registry
 * lets this service's own login (or none) pull `ref` now: a manifest lookup through the engine,
 * nothing downloaded. An image built on the host (no RepoDigests), or a name the host gave it (a tag
 * in a repository it was never pulled from), came from no registry under that name and stays usable,
 * but a built image only by its own organization (`builtImageAccess`).
 */
export async function cachedImageAccess(
  runtime: Pick<Runtime, "registryAccess" | "imageOrigin">,
  ref: string,
  imageId: string,
  auth: RegistryAuth | null,
  owner: ImageOwner,
  who: AccessSubject = SERVICE,
): Promise<CachedImageAccess> {
  // An id or id prefix (a row stored before the API refused it) names no repository to ask.
  const repository = isBareImageId(ref) ? null : repositoryKey(ref);
  if (repository === null) return { kind: "refused", message: `image ${ref} names no repository (an image id or a prefix of one): name the image by its repository, like registry.example.com/shop:1.4.2` };
  // One inspect: what the image is (a built one's labels) and where it came from (its RepoDigests).
  const origin = await runtime.imageOrigin(imageId);
  if (origin === null) return { kind: "gone" };
  const built = await builtAccessOf(origin.labels, ref, owner);
  if (built.kind !== "ok") return built;
  const digests = origin.repoDigests;
  // Compared as the engine resolves names: `index.docker.io/a/b`, `docker.io/a/b` and `a/b` are one repository.
  if (!digests.some((d) => repositoryKey(d) === repository)) return { kind: "ok" };
  if (owner.confirmations?.has(ref, imageId, auth)) return { kind: "ok" };
  const access = await runtime.registryAccess(ref, auth);
  if (access.ok) {
    owner.confirmations?.add(ref, imageId, auth);
    return { kind: "ok" };
  }
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
