import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LevelrailError } from "@levelrail/spec/errors";
import type { Controller, ReconcileResult } from "./controller";
import { TerminalError } from "./errors";
import { Runner, type RunnerEvent, type RunnerOptions } from "./runner";

// Captured before the fake timers replace it: lets every pending promise callback run.
const realSetImmediate = globalThis.setImmediate;
const flush = () => new Promise<void>((resolve) => realSetImmediate(resolve));

type Outcome = ReconcileResult | void | Error;

interface Pass {
  key: string;
  at: number;
  finish(outcome?: Outcome): Promise<void>;
}

/**
 * A controller whose passes end when the test says so (or at once with
 * `auto`), recording when each pass ran and how many ran at the same time.
 */
class FakeController implements Controller {
  readonly name = "fake";
  readonly passes: Pass[] = [];
  readonly open: Pass[] = [];
  private readonly perKey = new Map<string, number>();
  maxConcurrent = 0;
  maxPerKey = 0;

  constructor(private readonly auto?: (key: string, n: number) => Outcome) {}

  calls(key?: string): string[] {
    return this.passes.map((p) => p.key).filter((k) => key === undefined || k === key);
  }

  times(key: string): number[] {
    return this.passes.filter((p) => p.key === key).map((p) => p.at);
  }

  reconcile(key: string): Promise<ReconcileResult | void> {
    // A runaway loop of instantly settling passes would starve the event loop (and the test timeout).
    if (this.passes.length >= 200) return Promise.reject(new TerminalError("runaway: over 200 passes"));
    this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1);
    this.maxPerKey = Math.max(this.maxPerKey, this.perKey.get(key) ?? 0);
    return new Promise((resolve, reject) => {
      const settle = (outcome: Outcome) => {
        this.perKey.set(key, (this.perKey.get(key) ?? 1) - 1);
        this.open.splice(this.open.indexOf(pass), 1);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const pass: Pass = {
        key,
        at: Date.now(),
        finish: async (outcome) => {
          settle(outcome);
          await flush();
        },
      };
      this.passes.push(pass);
      this.open.push(pass);
      this.maxConcurrent = Math.max(this.maxConcurrent, this.open.length);
      if (this.auto) {
        const n = this.calls(key).length;
        const outcome = this.auto(key, n);
        queueMicrotask(() => settle(outcome));
      }
    });
  }

  /** The one open pass of `key`. */
  pass(key: string): Pass {
    const open = this.open.filter((p) => p.key === key);
    expect(open).toHaveLength(1);
    return open[0]!;
  }
}

const runnerWith = (ctrl: Controller, opts: RunnerOptions = {}) => {
  const events: RunnerEvent[] = [];
  const runner = new Runner(ctrl, { ...opts, log: (e) => events.push(e) });
  return { runner, events };
};

describe("Runner queueing", () => {
  it("collapses repeated enqueues of a queued key into one pass", async () => {
    const ctrl = new FakeController();
    const { runner } = runnerWith(ctrl, { concurrency: 1 });
    runner.enqueue("blocker");
    runner.enqueue("a");
    runner.enqueue("a");
    runner.enqueue("a");
    expect(runner.depth).toBe(1);
    await ctrl.pass("blocker").finish();
    await ctrl.pass("a").finish();
    await runner.idle();
    expect(ctrl.calls()).toEqual(["blocker", "a"]);
  });

  it("never runs a key twice at once: enqueues during a pass give exactly one more pass after it", async () => {
    const ctrl = new FakeController();
    const { runner } = runnerWith(ctrl);
    runner.enqueue("a");
    expect(ctrl.open).toHaveLength(1);
    runner.enqueue("a");
    runner.enqueue("a");
    runner.enqueue("a");
    await flush();
    expect(ctrl.calls()).toEqual(["a"]);
    expect(runner.depth).toBe(0);

    await ctrl.pass("a").finish();
    expect(ctrl.calls()).toEqual(["a", "a"]);
    await ctrl.pass("a").finish();
    await runner.idle();
    expect(ctrl.calls()).toEqual(["a", "a"]);
    expect(ctrl.maxPerKey).toBe(1);
  });

  it("a wake-up during a pass is not lost even when the pass fails", async () => {
    const ctrl = new FakeController();
    const { runner } = runnerWith(ctrl, { baseBackoffMs: 60_000 });
    runner.enqueue("a");
    runner.enqueue("a");
    await ctrl.pass("a").finish(new Error("boom"));
    // The wake-up wins over the minute of backoff.
    expect(ctrl.calls()).toEqual(["a", "a"]);
    await ctrl.pass("a").finish();
    await runner.idle();
  });

  it("runs different keys concurrently, up to `concurrency`", async () => {
    const ctrl = new FakeController();
    const { runner } = runnerWith(ctrl, { concurrency: 3 });
    for (const k of ["a", "b", "c", "d", "e"]) runner.enqueue(k);
    expect(ctrl.open.map((p) => p.key)).toEqual(["a", "b", "c"]);
    expect(runner.depth).toBe(2);

    await ctrl.pass("b").finish();
    expect(ctrl.open.map((p) => p.key)).toEqual(["a", "c", "d"]);
    await ctrl.pass("a").finish();
    await ctrl.pass("c").finish();
    await ctrl.pass("d").finish();
    await ctrl.pass("e").finish();
    await runner.idle();
    expect(ctrl.calls()).toEqual(["a", "b", "c", "d", "e"]);
    expect(ctrl.maxConcurrent).toBe(3);
  });

  it("logs the start and end of each pass", async () => {
    const ctrl = new FakeController();
    const { runner, events } = runnerWith(ctrl);
    runner.enqueue("a");
    await ctrl.pass("a").finish({ requeueAfterMs: 5000 });
    expect(events).toEqual([
      { type: "start", key: "a", waitedMs: expect.any(Number) },
      { type: "done", key: "a", ms: expect.any(Number), requeueAfterMs: 5000 },
    ]);
    await runner.stop();
  });
});

describe("Runner retries and delays", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("requeues an error with exponential backoff, doubling each time", async () => {
    const ctrl = new FakeController(() => new Error("engine down"));
    const { runner, events } = runnerWith(ctrl, { baseBackoffMs: 100, maxBackoffMs: 10_000 });
    const t0 = Date.now();
    runner.enqueue("a");
    await flush();
    expect(ctrl.calls()).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(99);
    expect(ctrl.calls()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(ctrl.calls()).toHaveLength(2);

    await vi.advanceTimersByTimeAsync(200 + 400 + 800);
    const times = ctrl.times("a").map((t) => t - t0);
    expect(times).toEqual([0, 100, 300, 700, 1500]);
    expect(events.filter((e) => e.type === "error").map((e) => (e.type === "error" ? e.retryInMs : 0))).toEqual([100, 200, 400, 800, 1600]);
    await runner.stop();
  });

  it("caps the backoff at maxBackoffMs", async () => {
    const ctrl = new FakeController(() => new Error("engine down"));
    const { runner } = runnerWith(ctrl, { baseBackoffMs: 100, maxBackoffMs: 350 });
    const t0 = Date.now();
    runner.enqueue("a");
    await vi.advanceTimersByTimeAsync(100 + 200 + 350 + 350);
    expect(ctrl.times("a").map((t) => t - t0)).toEqual([0, 100, 300, 650, 1000]);
    await runner.stop();
  });

  it("backoffMs doubles from the base and is capped at 5 minutes by default", () => {
    const runner = new Runner(new FakeController());
    expect([1, 2, 3, 4].map((n) => runner.backoffMs(n))).toEqual([500, 1000, 2000, 4000]);
    expect(runner.backoffMs(10)).toBe(256_000);
    expect(runner.backoffMs(11)).toBe(5 * 60_000);
    expect(runner.backoffMs(1000)).toBe(5 * 60_000);
    expect(new Runner(new FakeController(), { baseBackoffMs: 10, maxBackoffMs: 50 }).backoffMs(4)).toBe(50);
  });

  it("a success resets the backoff", async () => {
    // fail, fail, succeed with a requeue, fail: the last failure waits the base again.
    const script: Outcome[] = [new Error("1"), new Error("2"), { requeueAfterMs: 1000 }, new Error("3")];
    const ctrl = new FakeController((_k, n) => script[n - 1] ?? undefined);
    const { runner } = runnerWith(ctrl, { baseBackoffMs: 100 });
    const t0 = Date.now();
    runner.enqueue("a");
    await vi.advanceTimersByTimeAsync(100 + 200 + 1000 + 100);
    expect(ctrl.times("a").map((t) => t - t0)).toEqual([0, 100, 300, 1300, 1400]);
    await runner.stop();
  });

  it("does not retry a TerminalError", async () => {
    const ctrl = new FakeController(() => new TerminalError("bad spec"));
    const { runner, events } = runnerWith(ctrl, { baseBackoffMs: 100 });
    runner.enqueue("a");
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(ctrl.calls()).toEqual(["a"]);
    expect(events.map((e) => e.type)).toEqual(["start", "terminal"]);
    expect(vi.getTimerCount()).toBe(0);
    // A later wake-up still runs it: terminal means "not retried", not "never again".
    runner.enqueue("a");
    await flush();
    expect(ctrl.calls()).toEqual(["a", "a"]);
  });

  it.each([
    ["invalid_input", new LevelrailError("invalid_input", "image: is required", { field: "image" })],
    ["not_found", new LevelrailError("not_found", "service web not found")],
    ["unavailable, marked not retryable", new LevelrailError("unavailable", "gone for good", { retryable: false })],
  ])("records a product error that is not retryable (%s) and does not retry it", async (_case, error) => {
    expect(error.retryable).toBe(false);
    const ctrl = new FakeController(() => error);
    const { runner, events } = runnerWith(ctrl, { baseBackoffMs: 100 });
    runner.enqueue("a");
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(ctrl.calls()).toEqual(["a"]);
    expect(events).toEqual([
      { type: "start", key: "a", waitedMs: 0 },
      { type: "terminal", key: "a", error },
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each([
    ["unavailable", new LevelrailError("unavailable", "database restarting")],
    ["conflict, marked retryable", new LevelrailError("conflict", "locked", { retryable: true })],
  ])("backs off a product error that is retryable (%s), like any other error", async (_case, error) => {
    expect(error.retryable).toBe(true);
    const ctrl = new FakeController((_k, n) => (n < 3 ? error : undefined));
    const { runner, events } = runnerWith(ctrl, { baseBackoffMs: 100 });
    const t0 = Date.now();
    runner.enqueue("a");
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(ctrl.times("a").map((t) => t - t0)).toEqual([0, 100, 300]);
    expect(events.map((e) => e.type)).toEqual(["start", "error", "start", "error", "start", "done"]);
  });

  it("retryNow runs every key waiting out a backoff at once and resets its backoff", async () => {
    // a and b fail until the engine is back; c asked to be looked at again in a minute.
    let engineUp = false;
    const ctrl = new FakeController((key) => (key === "c" ? { requeueAfterMs: 60_000 } : engineUp ? undefined : new Error("engine down")));
    const { runner } = runnerWith(ctrl, { baseBackoffMs: 1000, maxBackoffMs: 300_000 });
    const t0 = Date.now();
    for (const k of ["a", "b", "c"]) runner.enqueue(k);
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000); // a and b: 4 failures, now waiting 8 s
    expect(ctrl.calls("a")).toHaveLength(4);

    engineUp = true;
    runner.retryNow();
    await flush();
    expect(ctrl.times("a").map((t) => t - t0)).toEqual([0, 1000, 3000, 7000, 7000]);
    expect(ctrl.times("b").map((t) => t - t0)).toEqual([0, 1000, 3000, 7000, 7000]);
    // c's delay is not a backoff: it still runs when it asked to, and only then.
    expect(ctrl.calls("c")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000 - 7000);
    expect(ctrl.calls("c")).toHaveLength(2);
    // Nothing from the old backoffs is left behind.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ctrl.calls("a")).toHaveLength(5);

    // The failure count starts over: the next failure waits the base again, not 16 s.
    engineUp = false;
    runner.enqueue("a");
    await flush();
    const failedAt = Date.now();
    await vi.advanceTimersByTimeAsync(1000);
    expect(ctrl.times("a").slice(-2).map((t) => t - failedAt)).toEqual([0, 1000]);
    await runner.stop();
  });

  it("retryNow with nothing backing off does nothing", async () => {
    const ctrl = new FakeController(() => undefined);
    const { runner } = runnerWith(ctrl);
    runner.enqueue("a");
    await flush();
    runner.retryNow();
    await flush();
    expect(ctrl.calls()).toEqual(["a"]);
    await runner.stop();
    runner.retryNow();
  });

  it("re-runs after requeueAfterMs", async () => {
    const ctrl = new FakeController((_k, n) => (n === 1 ? { requeueAfterMs: 1000 } : undefined));
    const { runner } = runnerWith(ctrl);
    runner.enqueue("a");
    await vi.advanceTimersByTimeAsync(999);
    expect(ctrl.calls()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(ctrl.calls()).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ctrl.calls()).toHaveLength(2);
  });

  it("an immediate enqueue overrides a pending delayed requeue", async () => {
    const ctrl = new FakeController((_k, n) => (n === 1 ? { requeueAfterMs: 60_000 } : undefined));
    const { runner } = runnerWith(ctrl);
    const t0 = Date.now();
    runner.enqueue("a");
    await vi.advanceTimersByTimeAsync(10);
    runner.enqueue("a");
    await flush();
    expect(ctrl.times("a").map((t) => t - t0)).toEqual([0, 10]);
    // The delayed requeue is gone, not merely late.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(ctrl.calls()).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("an immediate enqueue overrides a pending error backoff", async () => {
    const ctrl = new FakeController((_k, n) => (n === 1 ? new Error("x") : undefined));
    const { runner } = runnerWith(ctrl, { baseBackoffMs: 60_000 });
    runner.enqueue("a");
    await flush();
    runner.enqueue("a");
    await flush();
    expect(ctrl.calls()).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(ctrl.calls()).toHaveLength(2);
  });

  it("of two delayed requeues the sooner wins, and runs once", async () => {
    const ctrl = new FakeController();
    const { runner } = runnerWith(ctrl);
    const t0 = Date.now();
    runner.enqueueAfter("a", 5000);
    runner.enqueueAfter("a", 1000);
    runner.enqueueAfter("a", 3000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(ctrl.times("a").map((t) => t - t0)).toEqual([1000]);
    await ctrl.pass("a").finish();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ctrl.calls()).toEqual(["a"]);
  });
});

describe("Runner.stop", () => {
  it("waits for passes in flight, drops queued work and takes no more", async () => {
    const ctrl = new FakeController();
    const { runner } = runnerWith(ctrl, { concurrency: 1 });
    runner.enqueue("a");
    runner.enqueue("b");
    runner.enqueueAfter("c", 10);

    let stopped = false;
    const stopping = runner.stop().then(() => {
      stopped = true;
    });
    await flush();
    expect(stopped).toBe(false);

    runner.enqueue("d");
    runner.enqueue("a"); // a wake-up of the running key after stop does not run it again
    await ctrl.pass("a").finish({ requeueAfterMs: 1 });
    await stopping;
    expect(stopped).toBe(true);
    await new Promise((r) => setTimeout(r, 30)); // longer than c's and a's delays
    expect(ctrl.calls()).toEqual(["a"]);
  });

  it("does not schedule a retry for a pass that fails while stopping", async () => {
    const ctrl = new FakeController();
    const { runner, events } = runnerWith(ctrl, { baseBackoffMs: 1 });
    runner.enqueue("a");
    const stopping = runner.stop();
    await ctrl.pass("a").finish(new Error("boom"));
    await stopping;
    await new Promise((r) => setTimeout(r, 20));
    expect(ctrl.calls()).toEqual(["a"]);
    expect(events.map((e) => e.type)).toEqual(["start", "error"]);
  });

  it("resolves at once when nothing runs", async () => {
    const { runner } = runnerWith(new FakeController());
    await runner.stop();
    await runner.idle();
  });
});
