import { parentPort, workerData } from "node:worker_threads";
import { type LoadOptions, startLoad } from "./load";
import type { FromLoad, ToLoad } from "./load-thread";

/** The thread behind `startLoadThread`: one `startLoad`, driven by messages. */
const load = startLoad(workerData as LoadOptions);
const port = parentPort!;
const reply = (m: FromLoad) => port.postMessage(m);
port.on("message", (m: ToLoad) => {
  if (m.kind === "successes") {
    load.successes(m.n, m.timeoutMs).then(
      () => reply({ kind: "done", id: m.id }),
      (err: unknown) => reply({ kind: "done", id: m.id, error: err instanceof Error ? err.message : String(err) }),
    );
    return;
  }
  void load.stop().then((r) => reply({ kind: "stopped", id: m.id, result: { ...r, bodies: [...r.bodies] }, timeOrigin: performance.timeOrigin }));
});
