import type { Runtime } from "@levelrail/docker";

type Waits = Pick<Runtime, "exec" | "execStream" | "pullImage" | "waitExit" | "followLogs">;

/** `signal`, and the caller's own if any. */
const both = (lead: AbortSignal, own?: AbortSignal) => (own ? AbortSignal.any([lead, own]) : lead);

/** Rejects once `signal` aborts (with its reason). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error("this worker stopped leading"));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}

/**
 * The engine as a leader's controllers use it: every call that runs on (an exec, a stream out of
 * one, a pull, waiting on a hook container's exit or log) stops when `lead` aborts, i.e. when this
 * worker loses the leader lock. Execs and pulls are cancelled (an exec's process is killed where the
 * worker can see it); a wait is given up on (the container is the next leader's to adopt). Nothing
 * of the former leader runs on beside the new one's work.
 */
export function leadingRuntime<R extends Waits>(runtime: R, lead: AbortSignal): R {
  const lost = aborted(lead);
  lost.catch(() => {});
  const waits: Waits = {
    exec: (id, argv, onChunk, opts) => runtime.exec(id, argv, onChunk, { ...opts, signal: both(lead, opts?.signal) }),
    execStream: (id, argv, opts) => runtime.execStream(id, argv, { ...opts, signal: both(lead, opts.signal) }),
    pullImage: (ref, auth, onProgress, signal) => runtime.pullImage(ref, auth, onProgress, both(lead, signal)),
    waitExit: (id) => Promise.race([runtime.waitExit(id), lost]),
    followLogs: (id, onChunk) => Promise.race([runtime.followLogs(id, onChunk), lost]),
  };
  return new Proxy(runtime, {
    get(target, prop) {
      if (typeof prop === "string" && Object.hasOwn(waits, prop)) return waits[prop as keyof Waits];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
