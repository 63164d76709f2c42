import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type Docker from "dockerode";
import { type BuildkitStatus, BuildProgress } from "./build-progress";

/** One image build on the engine with BuildKit. */
export interface ImageBuildRequest {
  /** The build context: a directory on the worker's disk (its `.dockerignore` is honoured; `.git` never goes). */
  contextDir: string;
  /** The Dockerfile, relative to the context. */
  dockerfile: string;
  /** A stage to build; null: the last one. */
  target: string | null;
  buildArgs: Record<string, string>;
  /**
   * Prefixes every cache mount's id (`RUN --mount=type=cache`): the engine's BuildKit keeps cache
   * mounts for every build it runs, so each service's get a namespace of their own
   * (`BUILDKIT_CACHE_MOUNT_NS`, read by the engine's Dockerfile frontend).
   */
  cacheNamespace: string;
  labels: Record<string, string>;
  /** The name the image gets (`levelrail.invalid/<short>/<serviceId>:<commit>`: `builtImageName`). */
  tag: string;
}

export type ImageBuildResult =
  | { ok: true; imageId: string; cachedSteps: number; steps: number }
  /** `step`: the failing Dockerfile step as BuildKit names it (`[2/3] RUN false`), when one failed. */
  | { ok: false; step: string | null; message: string };

/** The build port the build controller owns; the engine implements it (dockerRuntime's `docker`). */
export interface ImageBuilder {
  /**
   * Builds and tags the image, telling each line of its progress. When `signal` aborts, the stream to
   * the engine is destroyed (so the engine cancels the build) and the promise rejects with the
   * signal's reason.
   */
  build(req: ImageBuildRequest, onLine: (line: string) => void, signal: AbortSignal): Promise<ImageBuildResult>;
}

type Status = BuildkitStatus;
let decodeStatus: ((b64: string) => Status) | null = null;

/** BuildKit's StatusResponse, with the proto dockerode ships (loaded once, on first use). */
function decoder(): (b64: string) => Status {
  if (decodeStatus) return decodeStatus;
  const require = createRequire(import.meta.url);
  const dockerodeDir = dirname(require.resolve("dockerode/package.json"));
  const protobuf = createRequire(join(dockerodeDir, "package.json"))("protobufjs") as {
    loadSync(path: string): { lookupType(name: string): { decode(b: Buffer): unknown; toObject(m: unknown, o: object): unknown } };
  };
  const type = protobuf.loadSync(join(dockerodeDir, "lib", "proto", "buildkit_status.proto")).lookupType("moby.buildkit.v1.StatusResponse");
  decodeStatus = (b64) => type.toObject(type.decode(Buffer.from(b64, "base64")), { longs: String, bytes: Buffer, defaults: true }) as Status;
  return decodeStatus;
}

/** The names at the top of the context, `.git` left out (tar-fs walks directories it is given). */
async function contextEntries(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n !== ".git");
}

/** Builds through the engine's API with BuildKit (`version: "2"`), decoding its trace into lines. */
export function dockerImageBuilder(docker: Docker): ImageBuilder {
  return {
    async build(req, onLine, signal) {
      signal.throwIfAborted();
      // The frontend's own options ride on build args: a caller's may never override the namespace.
      const reserved = Object.keys(req.buildArgs).find((k) => /^BUILDKIT_/i.test(k));
      if (reserved) throw new Error(`build arg ${reserved} is the build engine's own option`);
      if (!req.cacheNamespace || req.cacheNamespace.includes("/")) throw new Error("a build needs a cache namespace without '/'");
      const progress = new BuildProgress(onLine);
      const opts = {
        t: req.tag,
        version: "2" as const,
        dockerfile: req.dockerfile,
        ...(req.target ? { target: req.target } : {}),
        buildargs: { ...req.buildArgs, BUILDKIT_CACHE_MOUNT_NS: req.cacheNamespace },
        labels: req.labels,
        rm: true,
        forcerm: true,
        abortSignal: signal,
      };
      const stream = (await docker.buildImage({ context: req.contextDir, src: await contextEntries(req.contextDir) }, opts as Docker.ImageBuildOptions).catch((err: unknown) => {
        throw signal.aborted ? reason(signal) : err;
      })) as NodeJS.ReadableStream & { destroy(): void };
      let imageId: string | null = null;
      let error: string | null = null;
      await new Promise<void>((resolve, reject) => {
        let buffer = "";
        const abort = () => {
          stream.destroy();
          reject(reason(signal));
        };
        if (signal.aborted) return abort();
        signal.addEventListener("abort", abort, { once: true });
        const line = (text: string) => {
          if (!text.trim()) return;
          let msg: { id?: string; aux?: unknown; error?: string; errorDetail?: { message?: string }; stream?: string };
          try {
            msg = JSON.parse(text) as typeof msg;
          } catch {
            return;
          }
          if (msg.id === "moby.buildkit.trace" && typeof msg.aux === "string") progress.status(decoder()(msg.aux));
          else if (msg.id === "moby.image.id" && msg.aux && typeof msg.aux === "object") imageId = String((msg.aux as { ID?: string }).ID ?? "") || null;
          else if (msg.error || msg.errorDetail) error = msg.errorDetail?.message ?? msg.error ?? "the build failed";
          else if (typeof msg.stream === "string") for (const l of msg.stream.split("\n")) if (l.trim()) onLine(l);
        };
        stream.on("data", (chunk: Buffer) => {
          buffer += chunk.toString("utf8");
          let nl = buffer.indexOf("\n");
          while (nl >= 0) {
            line(buffer.slice(0, nl));
            buffer = buffer.slice(nl + 1);
            nl = buffer.indexOf("\n");
          }
        });
        stream.on("end", () => {
          signal.removeEventListener("abort", abort);
          line(buffer);
          resolve();
        });
        stream.on("error", (err: Error) => {
          signal.removeEventListener("abort", abort);
          reject(signal.aborted ? reason(signal) : err);
        });
      });
      if (error !== null || imageId === null) {
        const failed = progress.failed();
        return { ok: false, step: failed?.step ?? null, message: failed?.message ?? error ?? "the build ended without an image" };
      }
      return { ok: true, imageId, cachedSteps: progress.cachedSteps(), steps: progress.steps() };
    },
  };
}

const reason = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error("the build was cancelled"));
