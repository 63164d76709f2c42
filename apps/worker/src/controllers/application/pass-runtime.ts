import type { Runtime } from "@levelrail/docker";
import type { Pass } from "../../reconcile/controller";

/** The message a pull past its deadline fails with (the deploy's message is `image <ref> could not be pulled: <this>`). */
export const pullTimedOut = (seconds: number) =>
  `no complete pull within ${seconds}s (LEVELRAIL_PULL_TIMEOUT_SECONDS); the registry is slow or stalled`;

/**
 * The engine as one pass of the application controller uses it. The three calls that only wait on
 * the engine, a pre-deploy hook container's exit, a post-deploy exec and an image pull, run off the
 * runner's slot (`pass.waiting`), so a long hook or a slow registry does not keep other keys
 * waiting; a pull also has a deadline, after which it is cancelled. Every other call is the runtime's own.
 */
export function passRuntime<R extends Pick<Runtime, "waitExit" | "exec" | "pullImage">>(runtime: R, pass: Pass, pullTimeoutSeconds: number): R {
  const waits: Pick<Runtime, "waitExit" | "exec" | "pullImage"> = {
    waitExit: (id) => pass.waiting(() => runtime.waitExit(id)),
    exec: (id, argv, onChunk, opts) => pass.waiting(() => runtime.exec(id, argv, onChunk, opts)),
    pullImage: (ref, auth, onProgress, signal) =>
      pass.waiting(async () => {
        const deadline = new AbortController();
        const timer = setTimeout(() => deadline.abort(new Error(pullTimedOut(pullTimeoutSeconds))), pullTimeoutSeconds * 1000);
        const cancel = () => deadline.abort(signal?.reason);
        signal?.addEventListener("abort", cancel, { once: true });
        try {
          return await runtime.pullImage(ref, auth, onProgress, deadline.signal);
        } finally {
          clearTimeout(timer);
          signal?.removeEventListener("abort", cancel);
        }
      }),
  };
  return new Proxy(runtime, {
    get(target, prop) {
      if (typeof prop === "string" && Object.hasOwn(waits, prop)) return waits[prop as keyof typeof waits];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
