import type { Prober } from "./ports";

/** A starting container the controller waits on. */
export interface ProbeTarget {
  /** The reconcile key woken when the outcome is known. */
  key: string;
  containerId: string;
  /** Its readiness URL on the app network. */
  url: string;
  /** The budget counts from `since` (the container's creation, ms since epoch). */
  since: number;
  budgetMs: number;
}

/** The latest probe of a container: what the plan reads as an observation. */
export interface ProbeObservation {
  ready: boolean;
  detail: string;
  /** When the manager saw this result (ms since epoch); a ready one's is when traffic could move. */
  at?: number;
}

export interface ProberManagerOptions {
  /** One HTTP probe. */
  prober: Prober;
  /** Time between probes of one container. */
  intervalMs: number;
  /** Called the moment a container is ready or its budget is spent (the runner collapses repeats). */
  wake: (key: string) => void;
  /** How long a final result is kept for the pass it woke (then dropped, should no pass forget it). Default 10 minutes. */
  retainMs?: number;
  now?: () => number;
}

interface Worker {
  target: ProbeTarget;
  result: ProbeObservation | null;
  timer: NodeJS.Timeout | null;
  done: boolean;
}

/**
 * Probes starting containers outside the reconcile pass (like kubelet's prober manager): the executor
 * registers a container, the manager probes it on its own timer and wakes the service's key once it
 * is ready or out of budget; the next pass reads `result`. Nothing here survives a worker restart,
 * and nothing needs to: a pass that finds no result registers the container again.
 */
export class ProberManager {
  private readonly workers = new Map<string, Worker>();
  private readonly now: () => number;
  private stopped = false;

  constructor(private readonly o: ProberManagerOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Starts probing the container; a container already registered keeps its worker and results. */
  register(target: ProbeTarget): void {
    if (this.stopped || this.workers.has(target.containerId)) return;
    const w: Worker = { target, result: null, timer: null, done: false };
    this.workers.set(target.containerId, w);
    void this.probe(w);
  }

  /** The latest result for the container, null before its first probe (or when it is not registered). */
  result(containerId: string): ProbeObservation | null {
    return this.workers.get(containerId)?.result ?? null;
  }

  /** The container is gone, switched or failed: stop probing it and drop its results. */
  forget(containerId: string): void {
    const w = this.workers.get(containerId);
    if (!w) return;
    w.done = true;
    if (w.timer) clearTimeout(w.timer);
    this.workers.delete(containerId);
  }

  /** How many containers are being probed (or hold a final result). */
  get size(): number {
    return this.workers.size;
  }

  stop(): void {
    this.stopped = true;
    for (const id of [...this.workers.keys()]) this.forget(id);
  }

  private async probe(w: Worker): Promise<void> {
    const { target } = w;
    const result = await this.o.prober.probe(target.url, Math.min(2000, target.budgetMs));
    if (w.done) return;
    w.result = { ...result, at: this.now() };
    if (result.ready || this.now() - target.since >= target.budgetMs) {
      w.done = true;
      this.o.wake(target.key);
      // A container removed by hand meanwhile is never forgotten by a pass: drop its result later.
      w.timer = setTimeout(() => this.forget(target.containerId), this.o.retainMs ?? 600_000);
      w.timer.unref?.();
      return;
    }
    // Never past the deadline: the last probe lands on it, so the budget's end wakes the key in time.
    const wait = Math.max(0, Math.min(this.o.intervalMs, target.since + target.budgetMs - this.now()));
    w.timer = setTimeout(() => {
      w.timer = null;
      void this.probe(w);
    }, wait);
    w.timer.unref?.();
  }
}
