import type { ImagePort, RegistryAuth } from "@levelrail/docker";
import { builtImageServiceId, noSuchImage } from "@levelrail/spec/naming";
import { type AccessSubject, cachedImageAccess } from "../application/image";
import { parseReference } from "../application/reference";
import type { ImageUse } from "./dockerfile";

/**
 * What a build may start from is what its organization may pull. Every organization's builds run on
 * the engine's BuildKit, which reads `FROM` / `COPY --from` / `--mount=from` images from the engine's
 * own image store before any registry: an image another organization pulled with its login, or built,
 * would be read as if it were this one's. So each image a Dockerfile uses (`imageUses`) is checked
 * before the build starts, as a service's image is (`cachedImageAccess`): a built image only by its
 * own organization, an image pulled from a registry only if that registry lets one of this
 * organization's registry logins for that host (or none) pull it now. An image the engine does not
 * have is BuildKit's to pull, without a login: what anyone may pull.
 */
export interface BaseImageDeps {
  shortName: string;
  runtime: Pick<ImagePort, "imageId" | "imageRepoDigests" | "imageOrigin" | "registryAccess">;
  /** The organization's registry logins (each is sent only to the registry its server names). */
  registryLogins(orgId: string): Promise<RegistryAuth[]>;
  /** A service's organization (null: no such service). */
  serviceOrgs(serviceId: string): Promise<string | null>;
}

export type BaseImageCheck = { ok: true } | { ok: false; line: number; message: string };

const BUILD: AccessSubject = {
  noun: "build",
  remedy: (ref) => `add a registry credential for its registry that may pull ${ref} to the organization, then build again`,
};

const HUB = new Set(["docker.io", "index.docker.io", "registry-1.docker.io"]);

/** A registry host as compared: lower case, every name of Docker Hub as `docker.io`; a login's server may carry a scheme and a path. */
export function registryHost(server: string): string {
  const host = server.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").split("/")[0]!.toLowerCase();
  return HUB.has(host) ? "docker.io" : host;
}

export async function checkBaseImages(deps: BaseImageDeps, orgId: string, uses: readonly ImageUse[]): Promise<BaseImageCheck> {
  let logins: RegistryAuth[] | null = null;
  const owner = { shortName: deps.shortName, orgId, orgOfService: deps.serviceOrgs };
  for (const use of uses) {
    const builtName = builtImageServiceId(deps.shortName, use.ref) !== null;
    const imageId = await deps.runtime.imageId(use.ref);
    if (imageId === null) {
      // A built image is never pulled (an old name would be asked of Docker Hub).
      if (builtName) return { ok: false, line: use.line, message: noSuchImage(use.ref) };
      continue;
    }
    const parsed = parseReference(use.ref);
    const host = parsed ? registryHost(parsed.domain) : null;
    logins ??= await deps.registryLogins(orgId);
    const auths: (RegistryAuth | null)[] = [...logins.filter((l) => host !== null && registryHost(l.serveraddress) === host), null];
    let refused: string | null = null;
    for (const auth of auths) {
      const access = await cachedImageAccess(deps.runtime, use.ref, imageId, auth, owner, BUILD);
      if (access.kind !== "refused") {
        refused = null;
        break;
      }
      refused ??= access.message;
      // Another organization's built image: no login changes that.
      if (access.message === noSuchImage(use.ref)) break;
    }
    if (refused !== null) return { ok: false, line: use.line, message: refused };
  }
  return { ok: true };
}
