import type { ContainerInformer } from "../containers/informer";
import type { workerMetrics } from "../metrics";
import type { StatePublisher } from "../dataplane/publisher";
import { DEFAULT_CONCURRENCY, DEFAULT_RETENTION_MS, MetricsSampler, sampleTargets } from "../metrics-sampler/sampler";
import { swarmSampling } from "../metrics-sampler/swarm-targets";
import { pgMetricStore } from "../metrics-sampler/store";
import type { WorkerOptions } from "../wiring";

/**
 * What runs beside the controllers: the Prometheus endpoint and the container metrics sampler (the status rows name each
 * service's active container, the informer says whether it runs; only stats calls go to the engine).
 */
export async function startBackground(o: WorkerOptions, p: { informer: ContainerInformer; metrics: ReturnType<typeof workerMetrics>; dataPlane: StatePublisher }) {
  const metricsServer = o.metricsPort === undefined ? null : await p.metrics.serve(o.metricsPort);
  const metricStore = pgMetricStore(o.db);
  // On a swarm: each service's tasks, read on their nodes (the manager's, and the node agents' readings).
  const readings = o.swarmReleases?.taskReadings;
  const swarm = readings
    ? swarmSampling({ active: () => metricStore.activeServices(), tasksOf: (id) => p.dataPlane.current().services[id]?.tasks ?? [], readings })
    : null;
  const sampler = new MetricsSampler({
    runtime: swarm?.runtime ?? o.runtime,
    targets: swarm?.targets ?? sampleTargets(() => metricStore.activeServices(), p.informer),
    store: metricStore,
    intervalMs: o.containerMetrics?.intervalMs ?? 10_000,
    retentionMs: o.containerMetrics?.retentionMs ?? DEFAULT_RETENTION_MS,
    concurrency: o.containerMetrics?.concurrency ?? DEFAULT_CONCURRENCY,
    onRound: (taken) => p.metrics.containerSamples(taken),
    log: o.log,
  });
  sampler.start();
  return {
    sampler,
    async stop() {
      await sampler.stop();
      metricsServer?.close();
    },
  };
}
