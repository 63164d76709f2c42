import { type CpuCounters, type ManagedContainer, type Runtime, cpuPercent } from "@levelrail/docker";

/** A service whose status names an active container, with the names its gauges carry. */
export interface ActiveService {
  serviceId: string;
  service: string;
  environmentId: string;
  environment: string;
  container: string;
}

/** A service's active container, as the sampler reads it. */
export interface SampleTarget {
  serviceId: string;
  service: string;
  environmentId: string;
  environment: string;
  /** The engine's id (or name) of the active container. */
  containerId: string;
  container: string;
}

/** One sample, as stored and exported. */
export interface ContainerSample {
  serviceId: string;
  container: string;
  at: Date;
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number | null;
  netRxBytes: number;
  netTxBytes: number;
}

/** Where samples go, and how old ones leave. */
export interface MetricStore {
  insert(samples: ContainerSample[]): Promise<void>;
  /** Deletes every sample taken before `before`. */
  prune(before: Date): Promise<void>;
}

export interface SamplerOptions {
  runtime: Pick<Runtime, "containerStats">;
  /** Every service's active, running container now (no engine call: the status rows and the container informer). */
  targets: () => Promise<SampleTarget[]>;
  store: MetricStore;
  intervalMs: number;
  /** Samples older than this go (`DEFAULT_RETENTION_MS`). */
  retentionMs: number;
  /** Stats calls in flight at once. */
  concurrency: number;
  /** After each round: the samples taken and the targets they came from (the Prometheus gauges). */
  onRound?: (samples: { target: SampleTarget; sample: ContainerSample }[]) => void;
  now?: () => number;
  log: (line: string) => void;
}

export const DEFAULT_RETENTION_MS = 3_600_000;
/** A retention window longer than this is refused: the table stays small however the sampler is set. */
export const MAX_RETENTION_MS = 24 * 3_600_000;
/**
 * The engine answers a stats read at its collector's next tick (about a second later, one-shot or
 * not), however many wait: the calls wait, they do not work. 100 services, 50 at a time, take about
 * two seconds a round; one at a time they would take 100.
 */
export const DEFAULT_CONCURRENCY = 50;

/**
 * Samples every service's active container every `intervalMs`: one one-shot stats read each (at most
 * `concurrency` in flight), CPU computed between this sampler's own consecutive readings of the same
 * container (so a container's first reading gives no row yet, unless the engine brought a previous
 * reading along), then the samples are written in one insert and those past the retention window
 * deleted. Rounds never overlap: the next is scheduled when one ends.
 */
export class MetricsSampler {
  private readonly previous = new Map<string, CpuCounters>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly o: SamplerOptions) {
    if (o.retentionMs <= 0 || o.retentionMs > MAX_RETENTION_MS) throw new Error(`metrics retention must be between 1 ms and ${MAX_RETENTION_MS} ms, not ${o.retentionMs}`);
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One round now (tests and the bench call it directly). */
  async round(): Promise<ContainerSample[]> {
    const now = this.o.now ?? Date.now;
    const targets = await this.o.targets();
    const at = new Date(now());
    const taken: { target: SampleTarget; sample: ContainerSample }[] = [];
    const seen = new Set<string>();
    await eachLimited(targets, this.o.concurrency, async (t) => {
      seen.add(t.containerId);
      const s = await this.o.runtime.containerStats(t.containerId).catch((err: unknown) => {
        this.o.log(`[metrics] ${t.container}: ${err instanceof Error ? err.message : String(err)}`);
        return null;
      });
      if (!s) return;
      const cpu = cpuPercent(this.previous.get(t.containerId) ?? s.precpu, s.cpu);
      this.previous.set(t.containerId, s.cpu);
      if (cpu === null) return;
      taken.push({
        target: t,
        sample: {
          serviceId: t.serviceId,
          container: t.container,
          at,
          cpuPercent: Math.round(cpu * 100) / 100,
          memoryBytes: s.memoryBytes,
          memoryLimitBytes: s.memoryLimitBytes,
          netRxBytes: s.netRxBytes,
          netTxBytes: s.netTxBytes,
        },
      });
    });
    // Containers no longer active are forgotten.
    for (const id of this.previous.keys()) if (!seen.has(id)) this.previous.delete(id);
    const samples = taken.map((x) => x.sample);
    if (samples.length > 0) await this.o.store.insert(samples);
    await this.o.store.prune(new Date(at.getTime() - this.o.retentionMs));
    this.o.onRound?.(taken);
    return samples;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round()
        .then(() => {}, (err: unknown) => this.o.log(`[metrics] sampling: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => {
          this.running = null;
          this.schedule(this.o.intervalMs);
        });
    }, ms);
    this.timer.unref();
  }
}

/**
 * The sampler's targets: the services whose status names an active container (`active`), each with
 * that container's id if it runs now, from the container index (no engine call).
 */
export function sampleTargets(active: () => Promise<ActiveService[]>, containers: { byService(serviceId: string): ManagedContainer[] }): () => Promise<SampleTarget[]> {
  return async () =>
    (await active()).flatMap((a) => {
      const c = containers.byService(a.serviceId).find((x) => x.name === a.container && x.state === "running");
      return c ? [{ ...a, containerId: c.id }] : [];
    });
}

/** Runs `fn` over `items` with at most `limit` at once. */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
