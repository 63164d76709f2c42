import { createServer, type Server } from "node:http";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RunnerEvent } from "./reconcile/runner";

/** The worker's Prometheus metrics: reconciles, errors, queue depth, deploy durations. */
export function workerMetrics() {
  const registry = new Registry();
  const reconciles = new Counter({
    name: "levelrail_reconciles_total",
    help: "Reconcile passes by controller and result (ok, error, terminal).",
    labelNames: ["controller", "result"],
    registers: [registry],
  });
  const reconcileSeconds = new Histogram({
    name: "levelrail_reconcile_duration_seconds",
    help: "Duration of one reconcile pass.",
    labelNames: ["controller"],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [registry],
  });
  const queueDepth = new Gauge({ name: "levelrail_queue_depth", help: "Keys waiting per controller.", labelNames: ["controller"], registers: [registry] });
  const deploySeconds = new Histogram({
    name: "levelrail_deploy_duration_seconds",
    help: "From the start of a deploy to its cutover or failure.",
    labelNames: ["outcome"],
    buckets: [1, 2, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });

  const imagesRemoved = new Counter({ name: "levelrail_images_removed_total", help: "Pulled images removed by image collection.", registers: [registry] });
  const imageBytesFreed = new Counter({ name: "levelrail_image_bytes_freed_total", help: "Bytes of the pulled images removed by image collection (their size as the engine lists it).", registers: [registry] });

  return {
    registry,
    deploySeconds,
    /** One pulled image removed, `bytes` its size. */
    imagesRemoved(bytes: number) {
      imagesRemoved.inc();
      imageBytesFreed.inc(bytes);
    },
    /** A runner log hook for one controller. */
    observe(controller: string, depth: () => number) {
      return (e: RunnerEvent) => {
        queueDepth.set({ controller }, depth());
        if (e.type === "done") {
          reconciles.inc({ controller, result: "ok" });
          reconcileSeconds.observe({ controller }, e.ms / 1000);
        } else if (e.type === "error") {
          reconciles.inc({ controller, result: "error" });
          reconcileSeconds.observe({ controller }, e.ms / 1000);
        } else if (e.type === "terminal") {
          reconciles.inc({ controller, result: "terminal" });
        }
      };
    },
    /** Serves /metrics on loopback only. */
    async serve(port: number): Promise<Server> {
      const server = createServer((req, res) => {
        if (req.url !== "/metrics") {
          res.writeHead(404).end();
          return;
        }
        registry.metrics().then(
          (text) => res.writeHead(200, { "Content-Type": registry.contentType }).end(text),
          () => res.writeHead(500).end(),
        );
      });
      await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve()));
      return server;
    },
  };
}
