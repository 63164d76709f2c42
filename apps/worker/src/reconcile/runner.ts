import type { Controller, Pass } from "./controller";
import { type FinalError, isFinal } from "./errors";
import { FairQueue, SHARED_TENANT } from "./fair-queue";

export interface RunnerOptions {
  /** Keys reconciled at once (each key is still one at a time). */
  concurrency?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  log?: (event: RunnerEvent) => void;
  /**
   * The tenant (organization) whose share of the slots a key's passes use; queued keys are taken
   * fairly across tenants. A string (a cache hit) queues the key at once. Absent, or failing: one
   * shared tenant.
   */
  tenantOf?: (key: string) => string | Promise<string>;
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
 *
 * `concurrency` slots are shared fairly: the next queued key is the oldest of the tenant holding the
 * fewest slots. A pass that only waits on the engine (`pass.waiting`) gives its slot up meanwhile
 * and takes one back ahead of queued keys.
 */
export class Runner {
  private readonly queue = new FairQueue<string>();
  /** Keys queued (or having their tenant looked up) → enqueue time. */
  private readonly queued = new Map<string, number>();
  /** Passes done waiting, each to be handed a slot. */
  private readonly resumers = new FairQueue<() => void>();
  /** Slots held, by tenant. */
  private readonly slots = new Map<string, number>();
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
    const tenant = this.tenant(key);
    if (typeof tenant === "string") return this.admit(key, tenant);
    void tenant.then(
      (t) => this.admit(key, t),
      () => this.admit(key, SHARED_TENANT),
    );
  }

  private tenant(key: string): string | Promise<string> {
    if (!this.opts.tenantOf) return SHARED_TENANT;
    try {
      return this.opts.tenantOf(key);
    } catch {
      return SHARED_TENANT;
    }
  }

  private admit(key: string, tenant: string): void {
    // Dropped by `stop` while its tenant was being looked up.
    if (this.stopped || !this.queued.has(key)) return;
    this.queue.push(tenant, key);
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
    return this.queued.size;
  }

  private get isIdle(): boolean {
    return this.running.size === 0 && this.queued.size === 0;
  }

  /** Resolves when nothing is queued or running, waiting passes included (delayed requeues do not count). */
  idle(): Promise<void> {
    if (this.isIdle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stop taking work and wait for passes in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const key of [...this.timers.keys()]) this.clearTimer(key);
    this.queue.clear();
    this.queued.clear();
    await this.idle();
  }

  private clearTimer(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t.timer);
    this.timers.delete(key);
  }

  private readonly held = (tenant: string) => this.slots.get(tenant) ?? 0;

  private take(tenant: string): void {
    this.active++;
    this.slots.set(tenant, this.held(tenant) + 1);
  }

  private give(tenant: string): void {
    this.active--;
    const n = this.held(tenant) - 1;
    if (n > 0) this.slots.set(tenant, n);
    else this.slots.delete(tenant);
  }

  /** Hands free slots out: first to passes done waiting (even while stopping, so they can finish), then to queued keys. */
  private pump(): void {
    while (this.active < this.concurrency) {
      const resumer = this.resumers.take(this.held);
      if (resumer) {
        this.take(resumer.tenant);
        resumer.item();
        continue;
      }
      if (this.stopped) break;
      const next = this.queue.take(this.held);
      if (!next) break;
      const key = next.item;
      const enqueuedAt = this.queued.get(key) ?? Date.now();
      this.queued.delete(key);
      this.take(next.tenant);
      this.running.add(key);
      void this.process(key, next.tenant, enqueuedAt);
    }
    if (this.isIdle) {
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** The pass's handle on its slot: given up while it waits, taken back (fairly, before queued keys) after. */
  private passFor(tenant: string): Pass & { end(): void } {
    let holding = true;
    let ended = false;
    let waits = 0;
    const regain = () =>
      new Promise<void>((resolve) => {
        this.resumers.push(tenant, () => {
          // A pass that ended without awaiting its wait has no use for the slot.
          if (ended) return this.give(tenant);
          holding = true;
          resolve();
        });
        this.pump();
      });
    return {
      waiting: async (work) => {
        if (waits++ === 0 && holding) {
          holding = false;
          this.give(tenant);
          this.pump();
        }
        try {
          return await work();
        } finally {
          if (--waits === 0 && !holding && !ended) await regain();
        }
      },
      end: () => {
        ended = true;
        if (holding) this.give(tenant);
        holding = false;
      },
    };
  }

  private async process(key: string, tenant: string, enqueuedAt: number): Promise<void> {
    const started = Date.now();
    this.opts.log?.({ type: "start", key, waitedMs: started - enqueuedAt });
    const pass = this.passFor(tenant);
    try {
      const result = await this.controller.reconcile(key, { waiting: pass.waiting });
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
      pass.end();
      if (this.dirty.delete(key)) this.enqueue(key);
      this.pump();
    }
  }
}
