import type { ProbeResult } from "./ports";

/** A container a controller waits on: what every probe target has. */
export interface ProbeTarget {
  /** The reconcile key woken when the outcome is known (null: none; a caller awaits `until` instead). */
  key: string | null;
  containerId: string;
  /** The budget counts from `since` (the container's creation or start, ms since epoch). */
  since: number;
  budgetMs: number;
}

/** A starting service container: probed over HTTP on its app network. */
export interface HttpProbeTarget extends ProbeTarget {
  key: string;
  /** Its readiness URL on the app network. */
  url: string;
}

/** The latest probe of a container: what the plan reads as an observation. */
export interface ProbeObservation {
  ready: boolean;
  detail: string;
  /** When the manager saw this result (ms since epoch); a ready one's is when traffic could move. */
  at?: number;
  /** The probe said the container can never get ready as it is (it exited, it is gone). */
  final?: boolean;
  /** The engine can no longer start processes in the container: only a new container can get ready. */
  replace?: boolean;
  /** The manager stopped probing: ready, never to be ready, or out of budget (until a `renew`). */
  done?: boolean;
}

export interface ProberManagerOptions<T extends ProbeTarget> {
  /** One probe of the target (the manager gives it a deadline, and reads a rejection as not ready). */
  probe: (target: T, timeoutMs: number) => Promise<ProbeResult>;
  /** Time between probes of one container. */
  intervalMs: number;
  /** The longest one probe may take (never past the budget). Default 2 s. */
  probeTimeoutMs?: number;
  /** Called the moment a container is ready or its budget is spent (the runner collapses repeats). */
  wake: (key: string) => void;
  /** How long a final result is kept for the pass it woke (then dropped, should no pass forget it). Default 10 minutes. */
  retainMs?: number;
  now?: () => number;
}

interface Worker<T> {
  target: T;
  result: ProbeObservation | null;
  timer: NodeJS.Timeout | null;
  done: boolean;
  /** Callers of `until`, told the final result. */
  waiters: ((o: ProbeObservation) => void)[];
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Probes starting containers outside the reconcile pass (like kubelet's prober manager): the executor
 * registers a container, the manager probes it on its own timer and wakes the key once it is ready or
 * out of budget; the next pass reads `result`. Nothing here survives a worker restart, and nothing
 * needs to: a pass that finds no result registers the container again. What a probe is (an HTTP GET,
 * an exec of `pg_isready`) is the caller's, injected as `probe`.
 */
export class ProberManager<T extends ProbeTarget = HttpProbeTarget> {
  private readonly workers = new Map<string, Worker<T>>();
  private readonly now: () => number;
  private stopped = false;

  constructor(private readonly o: ProberManagerOptions<T>) {
    this.now = o.now ?? Date.now;
  }

  /** Starts probing the container; a container already registered keeps its worker and results. */
  register(target: T): void {
    if (this.stopped || this.workers.has(target.containerId)) return;
    const w: Worker<T> = { target, result: null, timer: null, done: false, waiters: [] };
    this.workers.set(target.containerId, w);
    void this.probe(w);
  }

  /**
   * Probes a container whose outcome is known again (a live server checked once more, or restarted):
   * its last result stays readable until the new one is in. One still being probed is left as it is.
   */
  renew(target: T): void {
    const w = this.workers.get(target.containerId);
    if (!w) return this.register(target);
    if (this.stopped || !w.done) return;
    if (w.timer) clearTimeout(w.timer);
    Object.assign(w, { target, timer: null, done: false });
    void this.probe(w);
  }

  /** Registers the container (if it is not) and resolves with its final result: ready, out of budget, or never to be ready. */
  until(target: T): Promise<ProbeObservation> {
    this.register(target);
    const w = this.workers.get(target.containerId);
    if (!w) return Promise.resolve({ ready: false, detail: "the prober is stopped", final: true });
    if (w.done && w.result) return Promise.resolve(w.result);
    return new Promise((resolve) => w.waiters.push(resolve));
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
    for (const resolve of w.waiters.splice(0)) resolve({ ready: false, detail: "no longer probed", final: true });
  }

  /** How many containers are being probed (or hold a final result). */
  get size(): number {
    return this.workers.size;
  }

  stop(): void {
    this.stopped = true;
    for (const id of [...this.workers.keys()]) this.forget(id);
  }

  private async probe(w: Worker<T>): Promise<void> {
    const { target } = w;
    const timeoutMs = Math.min(this.o.probeTimeoutMs ?? 2000, target.budgetMs);
    const result = await this.o.probe(target, timeoutMs).catch((err: unknown): ProbeResult => ({ ready: false, detail: describe(err) }));
    if (w.done) return;
    const before = w.result;
    w.result = { ...result, at: this.now() };
    if (result.ready || result.final || this.now() - target.since >= target.budgetMs) {
      w.done = true;
      w.result.done = true;
      if (target.key !== null) this.o.wake(target.key);
      for (const resolve of w.waiters.splice(0)) resolve(w.result);
      // A container removed by hand meanwhile is never forgotten by a pass: drop its result later.
      w.timer = setTimeout(() => this.forget(target.containerId), this.o.retainMs ?? 600_000);
      w.timer.unref?.();
      return;
    }
    // A renewed probe of a container that was ready finds it no longer is: the key hears it now.
    if (before?.ready && target.key !== null) this.o.wake(target.key);
    // Never past the deadline: the last probe lands on it, so the budget's end wakes the key in time.
    const wait = Math.max(0, Math.min(this.o.intervalMs, target.since + target.budgetMs - this.now()));
    w.timer = setTimeout(() => {
      w.timer = null;
      void this.probe(w);
    }, wait);
    w.timer.unref?.();
  }
}
