import { Worker } from "node:worker_threads";
import type { LoadOptions, LoadResult, RunningLoad } from "./load";

/** Messages between the caller and the load's thread (see load-worker.ts). */
export type ToLoad = { kind: "successes"; id: number; n: number; timeoutMs?: number } | { kind: "stop"; id: number };
export type FromLoad =
  | { kind: "done"; id: number; error?: string }
  | { kind: "stopped"; id: number; result: Omit<LoadResult, "bodies"> & { bodies: [string, number][] }; timeOrigin: number };

/**
 * `startLoad` on its own thread: the requests are sent and timed by an event loop that nothing else
 * shares, so a busy caller (a worker reconciling in the same process, as in the benches) does not
 * add its own delays to the latencies measured. Samples come back on the caller's `performance.now()`
 * clock. `result` is filled in only by `stop()`.
 */
export function startLoadThread(o: LoadOptions): RunningLoad {
  // A thread does not inherit the caller's TypeScript loader: it registers tsx's, then loads the worker.
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL("./load-worker.ts", import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: o });
  const result: LoadResult = { total: 0, failed: 0, failures: [], bodies: new Map(), lastBody: null, samples: [], hitBound: false };
  const waiting = new Map<number, (m: FromLoad) => void>();
  let next = 0;
  let failure: Error | null = null;
  worker.on("message", (m: FromLoad) => waiting.get(m.id)?.(m));
  worker.on("error", (err) => {
    failure = err;
    for (const w of waiting.values()) w({ kind: "done", id: -1, error: err.message });
  });
  const ask = (m: Omit<ToLoad, "id"> & { kind: ToLoad["kind"] }): Promise<FromLoad> => {
    if (failure) return Promise.reject(failure);
    const id = next++;
    return new Promise((resolve) => {
      waiting.set(id, (r) => {
        waiting.delete(id);
        resolve(r);
      });
      worker.postMessage({ ...m, id });
    });
  };
  return {
    result,
    async successes(n, timeoutMs) {
      const r = await ask({ kind: "successes", n, timeoutMs } as ToLoad);
      if (r.kind === "done" && r.error) throw new Error(r.error);
    },
    async stop() {
      const r = await ask({ kind: "stop" } as ToLoad);
      await worker.terminate();
      if (r.kind !== "stopped") throw new Error(r.kind === "done" && r.error ? r.error : "the load's thread ended without its result");
      // The thread's performance.now() counts from its own origin: move its samples onto ours.
      const shift = r.timeOrigin - performance.timeOrigin;
      Object.assign(result, { ...r.result, bodies: new Map(r.result.bodies), samples: r.result.samples.map((s) => ({ ...s, at: s.at + shift })) });
      return result;
    },
  };
}
