import type { ContainerInformer } from "../containers/informer";
import type { workerMetrics } from "../metrics";
import { DEFAULT_CONCURRENCY, DEFAULT_RETENTION_MS, MetricsSampler, sampleTargets } from "../metrics-sampler/sampler";
import { pgMetricStore } from "../metrics-sampler/store";
import { NotificationDispatcher } from "../notifications/dispatch";
import type { WorkerOptions } from "../wiring";

/**
 * What runs beside the controllers: the Prometheus endpoint, the notification dispatcher (sends
 * and retries what changes enqueued) and the container metrics sampler (the status rows name each
 * service's active container, the informer says whether it runs; only stats calls go to the engine).
 */
export async function startBackground(o: WorkerOptions, p: { informer: ContainerInformer; metrics: ReturnType<typeof workerMetrics> }) {
  const metricsServer = o.metricsPort === undefined ? null : await p.metrics.serve(o.metricsPort);
  const notifications = new NotificationDispatcher({
    db: o.db,
    keyring: o.keyring,
    policy: { allowPrivate: o.allowPrivateTargets === true, panelHost: o.panelHost },
    log: o.log,
    ...o.notifications,
  });
  notifications.start();
  const metricStore = pgMetricStore(o.db);
  const sampler = new MetricsSampler({
    runtime: o.runtime,
    targets: sampleTargets(() => metricStore.activeServices(), p.informer),
    store: metricStore,
    intervalMs: o.containerMetrics?.intervalMs ?? 10_000,
    retentionMs: o.containerMetrics?.retentionMs ?? DEFAULT_RETENTION_MS,
    concurrency: o.containerMetrics?.concurrency ?? DEFAULT_CONCURRENCY,
    onRound: (taken) => p.metrics.containerSamples(taken),
    log: o.log,
  });
  sampler.start();
  return {
    notifications,
    sampler,
    async stop() {
      await notifications.stop();
      await sampler.stop();
      metricsServer?.close();
    },
  };
}
