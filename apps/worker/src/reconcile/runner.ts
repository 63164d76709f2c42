import type { Controller } from "./controller";
import { type FinalError, isFinal } from "./errors";

export interface RunnerOptions {
  /** Keys reconciled at once (each key is still one at a time). */
  concurrency?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  log?: (event: RunnerEvent) => void;
}

export type RunnerEvent =
  | { type: "start"; key: string; waitedMs: number }
  | { type: "done"; key: string; ms: number; requeueAfterMs?: number }
  | { type: "error"; key: string; ms: number; error: unknown; retryInMs: number }
  /** A `TerminalError`, or a `LevelrailError` that is not `retryable`: recorded, not retried. */
  | { type: "terminal"; key: string; error: FinalError };

/**
 * The queue in front of one controller: repeated wake-ups of a key collapse
 * into one, a key is never reconciled twice at once (a wake-up during a pass
 * runs it again right after), errors requeue with capped exponential backoff,
 * and an error that says retrying cannot help (`isFinal`) is recorded, not retried.
 * This is the worker's one adapter from a thrown error to a retry policy.
 */
export class Runner {
  private readonly queue: string[] = [];
  private readonly queued = new Map<string, number>(); // key → enqueue time
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  /** Pending delayed requeues; `backoff` marks those waiting out an error. */
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout; backoff: boolean }>();
  private readonly idleWaiters: (() => void)[] = [];
  private active = 0;
  private stopped = false;
  private readonly concurrency: number;
  private readonly base: number;
  private readonly max: number;

  constructor(
    private readonly controller: Controller,
    private readonly opts: RunnerOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 4;
    this.base = opts.baseBackoffMs ?? 500;
    this.max = opts.maxBackoffMs ?? 5 * 60_000;
  }

  /** Reconcile `key` as soon as possible. */
  enqueue(key: string): void {
    if (this.stopped) return;
    this.clearTimer(key);
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.set(key, Date.now());
    this.queue.push(key);
    this.pump();
  }

  /** Reconcile `key` after `ms`, unless something wakes it sooner. */
  enqueueAfter(key: string, ms: number): void {
    this.schedule(key, ms, false);
  }

  /**
   * Forget every key's failures and run the keys waiting out an error backoff now (say, the
   * Docker engine is back after a restart). Delays a controller asked for are left alone.
   */
  retryNow(): void {
    if (this.stopped) return;
    this.failures.clear();
    for (const [key, t] of [...this.timers]) if (t.backoff) this.enqueue(key);
  }

  private schedule(key: string, ms: number, backoff: boolean): void {
    if (this.stopped) return;
    if (ms <= 0) return this.enqueue(key);
    const at = Date.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    this.clearTimer(key);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.enqueue(key);
    }, ms);
    timer.unref();
    this.timers.set(key, { at, timer, backoff });
  }

  /** The backoff for the n-th consecutive failure (1-based). */
  backoffMs(failures: number): number {
    return Math.min(this.max, this.base * 2 ** Math.max(0, failures - 1));
  }

  get depth(): number {
    return this.queue.length;
  }

  /** Resolves when nothing is queued or running (delayed requeues do not count). */
  idle(): Promise<void> {
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stop taking work and wait for passes in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const key of [...this.timers.keys()]) this.clearTimer(key);
    this.queue.length = 0;
    this.queued.clear();
    await this.idle();
  }

  private clearTimer(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t.timer);
    this.timers.delete(key);
  }

  private pump(): void {
    while (!this.stopped && this.active < this.concurrency) {
      const idx = this.queue.findIndex((k) => !this.running.has(k));
      if (idx < 0) break;
      const [key] = this.queue.splice(idx, 1);
      if (key === undefined) break;
      const enqueuedAt = this.queued.get(key) ?? Date.now();
      this.queued.delete(key);
      this.active++;
      this.running.add(key);
      void this.process(key, enqueuedAt);
    }
    if (this.active === 0 && this.queue.length === 0) {
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private async process(key: string, enqueuedAt: number): Promise<void> {
    const started = Date.now();
    this.opts.log?.({ type: "start", key, waitedMs: started - enqueuedAt });
    try {
      const result = await this.controller.reconcile(key);
      this.failures.delete(key);
      const requeueAfterMs = result?.requeueAfterMs;
      this.opts.log?.({
        type: "done",
        key,
        ms: Date.now() - started,
        ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
      });
      if (requeueAfterMs !== undefined) this.enqueueAfter(key, requeueAfterMs);
    } catch (error) {
      if (isFinal(error)) {
        this.failures.delete(key);
        this.opts.log?.({ type: "terminal", key, error });
      } else {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        const retryInMs = this.backoffMs(n);
        this.opts.log?.({ type: "error", key, ms: Date.now() - started, error, retryInMs });
        this.schedule(key, retryInMs, true);
      }
    } finally {
      this.running.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.enqueue(key);
      this.pump();
    }
  }
}
