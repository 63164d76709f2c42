import type Docker from "dockerode";
import { engineMessage, statusOf } from "./engine-errors";
import type { PullProgress, Runtime } from "./index";

/** The image calls of the Runtime: look up, pull (with a cancel signal), list, remove, and ask a registry. */
export type ImageCalls = Pick<
  Runtime,
  "imageId" | "pullImage" | "listImages" | "containerImageIds" | "removeImage" | "imageRepoDigests" | "imageCreated" | "imageOrigin" | "tagImage" | "registryAccess"
>;

/** The OCI annotation (as an image label) that says when the image was built. */
export const OCI_CREATED_LABEL = "org.opencontainers.image.created";

/**
 * When an image was built: its `org.opencontainers.image.created` label when that is a valid time
 * (RFC 3339, as the OCI spec asks), else the engine's `Created`; null when neither parses.
 */
export function imageBuildTime(labels: Record<string, string> | null | undefined, engineCreated: string | null | undefined): Date | null {
  for (const text of [labels?.[OCI_CREATED_LABEL], engineCreated]) {
    if (!text || !/^\d{4}-\d{2}-\d{2}T/.test(text)) continue;
    const at = new Date(text);
    // The engine answers "0001-01-01T00:00:00Z" for an image with no time (reproducible builds).
    if (!Number.isNaN(at.getTime()) && at.getTime() > 0) return at;
  }
  return null;
}


/**
 * `api` answers request/response calls under a deadline; `docker` carries streams (a pull takes as
 * long as it takes, unless its signal cancels it).
 */
export function imageCalls(api: Docker, docker: Docker): ImageCalls {
  return {
    async imageId(ref) {
      try {
        const info = await api.getImage(ref).inspect();
        return info.Id;
      } catch (err) {
        if (statusOf(err) === 404) return null;
        throw err;
      }
    },
    async pullImage(ref, auth, onProgress, signal) {
      signal?.throwIfAborted();
      // The signal also ends the request itself, should the engine not have answered yet.
      const opts = { ...(auth ? { authconfig: auth } : {}), ...(signal ? { abortSignal: signal } : {}) };
      const stream = (await docker.pull(ref, opts).catch((err: unknown) => {
        throw signal?.aborted && signal.reason instanceof Error ? signal.reason : err;
      })) as NodeJS.ReadableStream & { destroy(): void };
      await new Promise<void>((resolve, reject) => {
        const abort = () => {
          stream.destroy();
          reject(signal?.reason instanceof Error ? signal.reason : new Error("the pull was cancelled"));
        };
        if (signal?.aborted) return abort();
        signal?.addEventListener("abort", abort, { once: true });
        docker.modem.followProgress(
          stream,
          (err: Error | null, output: { error?: string; errorDetail?: { message?: string } }[]) => {
            signal?.removeEventListener("abort", abort);
            const failed = output?.find((o) => o.error);
            if (err) reject(err);
            else if (failed) reject(new Error(failed.errorDetail?.message ?? failed.error));
            else resolve();
          },
          (event: PullProgress & { progressDetail?: { current?: number; total?: number } }) =>
            onProgress({
              status: event.status,
              ...(event.id === undefined ? {} : { id: event.id }),
              ...(event.progressDetail?.current === undefined ? {} : { current: event.progressDetail.current }),
              ...(event.progressDetail?.total === undefined ? {} : { total: event.progressDetail.total }),
            }),
        );
      });
    },
    async listImages() {
      const list = await api.listImages({ all: false });
      return list.map((i) => ({ id: i.Id, repoTags: (i.RepoTags ?? []).filter((t) => t !== "<none>:<none>"), size: i.Size }));
    },
    async containerImageIds() {
      const list = await api.listContainers({ all: true });
      return new Set(list.map((c) => c.ImageID));
    },
    async removeImage(nameOrId) {
      try {
        await api.getImage(nameOrId).remove({ force: false, noprune: false });
        return "removed";
      } catch (err) {
        const s = statusOf(err);
        if (s === 404) return "gone";
        if (s === 409) return "conflict";
        throw err;
      }
    },
    async imageRepoDigests(idOrRef) {
      try {
        return (await api.getImage(idOrRef).inspect()).RepoDigests ?? [];
      } catch (err) {
        if (statusOf(err) === 404) return null;
        throw err;
      }
    },
    async imageCreated(idOrRef) {
      try {
        const info = await api.getImage(idOrRef).inspect();
        return imageBuildTime(info.Config?.Labels, info.Created);
      } catch (err) {
        if (statusOf(err) === 404) return null;
        throw err;
      }
    },
    async imageOrigin(idOrRef) {
      try {
        const info = await api.getImage(idOrRef).inspect();
        return { repoDigests: info.RepoDigests ?? [], labels: { ...info.Config?.Labels } };
      } catch (err) {
        if (statusOf(err) === 404) return null;
        throw err;
      }
    },
    async tagImage(idOrRef, ref) {
      const colon = ref.lastIndexOf(":");
      const tagged = colon > ref.lastIndexOf("/");
      await api.getImage(idOrRef).tag({ repo: tagged ? ref.slice(0, colon) : ref, tag: tagged ? ref.slice(colon + 1) : "latest" });
    },
    async registryAccess(ref, auth) {
      try {
        await api.getImage(ref).distribution(auth ? { authconfig: auth } : {});
        return { ok: true };
      } catch (err) {
        // The engine answers a registry's refusal as 4xx or, for a missing or wrong login, as 500
        // ("no basic auth credentials", "unauthorized"); an engine that does not answer throws.
        const status = statusOf(err);
        if (status === undefined) throw err;
        return { ok: false, status, reason: engineMessage(err) };
      }
    },
  };
}
