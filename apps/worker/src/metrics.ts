import { createServer, type Server } from "node:http";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ContainerSample, SampleTarget } from "./metrics-sampler/sampler";
import type { RunnerEvent } from "./reconcile/runner";

/** The worker's Prometheus metrics: reconciles, errors, queue depth, deploy durations, each service's active container. */
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

  const containerLabels = ["service_id", "service", "environment_id", "environment"];
  const containerGauge = (name: string, help: string) => new Gauge({ name, help, labelNames: containerLabels, registers: [registry] });
  const cpu = containerGauge("levelrail_container_cpu_percent", "CPU of the service's active container over the last sampling interval, percent of one CPU.");
  const memory = containerGauge("levelrail_container_memory_bytes", "Memory the service's active container uses, without inactive page cache (as docker stats).");
  const memoryLimit = containerGauge("levelrail_container_memory_limit_bytes", "The memory limit of the service's active container (absent when it has none).");
  const rx = containerGauge("levelrail_container_network_receive_bytes", "Bytes the service's active container received since it started.");
  const tx = containerGauge("levelrail_container_network_transmit_bytes", "Bytes the service's active container sent since it started.");
  const containerGauges = [cpu, memory, memoryLimit, rx, tx];

  return {
    registry,
    deploySeconds,
    /** A sampling round's samples replace the last round's: a service no longer sampled leaves the gauges. */
    containerSamples(taken: readonly { target: SampleTarget; sample: ContainerSample }[]) {
      for (const g of containerGauges) g.reset();
      for (const { target: t, sample: s } of taken) {
        const labels = { service_id: t.serviceId, service: t.service, environment_id: t.environmentId, environment: t.environment };
        cpu.set(labels, s.cpuPercent);
        memory.set(labels, s.memoryBytes);
        if (s.memoryLimitBytes !== null) memoryLimit.set(labels, s.memoryLimitBytes);
        rx.set(labels, s.netRxBytes);
        tx.set(labels, s.netTxBytes);
      }
    },
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
