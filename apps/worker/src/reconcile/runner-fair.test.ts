import { describe, expect, it } from "vitest";
import type { Controller, Pass } from "./controller";
import { Runner } from "./runner";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: Error) => void;
}

const deferred = <T = void>(): Deferred<T> => {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

/**
 * Passes end when the test says so. A key listed in `waits` first waits (through `pass.waiting`)
 * on a promise the test settles, then holds its slot until finished like any other.
 */
class Passes implements Controller {
  readonly name = "fake";
  readonly started: string[] = [];
  /** Passes back on a slot after their wait, in order. */
  readonly resumed: string[] = [];
  private readonly ends = new Map<string, Deferred<void>>();
  readonly waits = new Map<string, Deferred<void>>();
  inSlots = 0;
  maxInSlots = 0;

  async reconcile(key: string, pass?: Pass): Promise<void> {
    this.started.push(key);
    this.enter();
    const wait = this.waits.get(key);
    if (wait && pass) {
      this.inSlots--;
      await pass.waiting(() => wait.promise);
      this.waits.delete(key);
      this.enter();
      this.resumed.push(key);
    }
    const end = deferred();
    this.ends.set(key, end);
    try {
      await end.promise;
    } finally {
      this.inSlots--;
    }
  }

  private enter() {
    this.inSlots++;
    this.maxInSlots = Math.max(this.maxInSlots, this.inSlots);
  }

  async finish(key: string, error?: Error) {
    await flush();
    const end = this.ends.get(key);
    expect(end, `${key} is not holding a slot`).toBeDefined();
    this.ends.delete(key);
    if (error) end!.reject(error);
    else end!.resolve();
    await flush();
  }

  holding(): string[] {
    return [...this.ends.keys()].sort();
  }
}

/** Tenant = the key's prefix before the dot ("a.1" → "a"). */
const byPrefix = (key: string) => key.split(".")[0]!;

describe("Runner: fair slots across tenants", () => {
  const rows: { name: string; concurrency: number; first: string[]; then: string[]; order: string[] }[] = [
    {
      name: "one tenant's hundred queued keys do not starve another's one",
      concurrency: 1,
      first: Array.from({ length: 100 }, (_, i) => `a.${i}`),
      then: ["b.1"],
      // a.0 runs; b's key is next, before the rest of a's.
      order: ["a.0", "b.1", "a.1", "a.2"],
    },
    {
      name: "the tenant holding the fewest slots gets the next free one",
      concurrency: 2,
      first: ["a.1", "a.2", "a.3", "a.4"],
      then: ["b.1", "c.1"],
      order: ["a.1", "a.2", "b.1", "c.1", "a.3", "a.4"],
    },
    {
      name: "tenants take turns key by key",
      concurrency: 1,
      first: ["a.1", "a.2", "a.3"],
      then: ["b.1", "b.2", "c.1"],
      order: ["a.1", "b.1", "c.1", "a.2", "b.2", "a.3"],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const ctrl = new Passes();
      const runner = new Runner(ctrl, { concurrency: row.concurrency, tenantOf: byPrefix });
      for (const k of [...row.first, ...row.then]) runner.enqueue(k);
      while (ctrl.started.length < row.order.length) await ctrl.finish(ctrl.holding()[0]!);
      expect(ctrl.started.slice(0, row.order.length)).toEqual(row.order);
      expect(ctrl.maxInSlots).toBeLessThanOrEqual(row.concurrency);
      const stopping = runner.stop();
      for (const k of ctrl.holding()) await ctrl.finish(k);
      await stopping;
    });
  }

  it("without a tenant lookup every key shares one tenant: first in, first out", async () => {
    const ctrl = new Passes();
    const runner = new Runner(ctrl, { concurrency: 1 });
    for (const k of ["a.1", "a.2", "b.1"]) runner.enqueue(k);
    for (const k of ["a.1", "a.2", "b.1"]) await ctrl.finish(k);
    expect(ctrl.started).toEqual(["a.1", "a.2", "b.1"]);
    await runner.idle();
  });

  it("queues a key while its tenant is looked up (counted, deduplicated), and a failed lookup goes to the shared tenant", async () => {
    const ctrl = new Passes();
    const lookups = new Map<string, Deferred<string>>();
    const runner = new Runner(ctrl, {
      concurrency: 2,
      tenantOf: (key) => {
        const d = deferred<string>();
        lookups.set(key, d);
        return d.promise;
      },
    });
    runner.enqueue("x");
    runner.enqueue("x");
    runner.enqueue("y");
    expect(runner.depth).toBe(2);
    expect(lookups.size).toBe(2);
    let idle = false;
    void runner.idle().then(() => (idle = true));
    lookups.get("y")!.reject(new Error("database down"));
    await flush();
    expect(ctrl.started).toEqual(["y"]);
    lookups.get("x")!.resolve("org-1");
    await flush();
    expect(ctrl.started).toEqual(["y", "x"]);
    expect(runner.depth).toBe(0);
    await ctrl.finish("x");
    await ctrl.finish("y");
    await flush();
    expect(idle).toBe(true);
  });

  it("stop drops a key whose tenant is still being looked up", async () => {
    const ctrl = new Passes();
    const d = deferred<string>();
    const runner = new Runner(ctrl, { tenantOf: () => d.promise });
    runner.enqueue("x");
    await runner.stop();
    d.resolve("org-1");
    await flush();
    expect(ctrl.started).toEqual([]);
  });
});

describe("Runner: a waiting pass holds no slot", () => {
  it("gives its slot to other keys while it waits, and takes one back before queued keys", async () => {
    const ctrl = new Passes();
    const hook = deferred();
    ctrl.waits.set("a.hook", hook);
    const runner = new Runner(ctrl, { concurrency: 1, tenantOf: byPrefix });
    runner.enqueue("a.hook");
    runner.enqueue("b.1");
    runner.enqueue("b.2");
    await flush();
    // a.hook waits: b.1 has the one slot.
    expect(ctrl.started).toEqual(["a.hook", "b.1"]);
    hook.resolve();
    await flush();
    expect(ctrl.resumed).toEqual([]); // no free slot yet
    await ctrl.finish("b.1");
    // The waiting pass gets the freed slot ahead of b.2.
    expect(ctrl.resumed).toEqual(["a.hook"]);
    expect(ctrl.started).toEqual(["a.hook", "b.1"]);
    await ctrl.finish("a.hook");
    expect(ctrl.started).toEqual(["a.hook", "b.1", "b.2"]);
    await ctrl.finish("b.2");
    await runner.idle();
    expect(ctrl.maxInSlots).toBe(1);
  });

  it("four waiting passes of one tenant leave every slot to another tenant's key", async () => {
    const ctrl = new Passes();
    const hooks = ["a.1", "a.2", "a.3", "a.4"];
    for (const k of hooks) ctrl.waits.set(k, deferred());
    const runner = new Runner(ctrl, { concurrency: 4, tenantOf: byPrefix });
    for (const k of hooks) runner.enqueue(k);
    await flush();
    runner.enqueue("b.1");
    await flush();
    expect(ctrl.started).toContain("b.1");
    await ctrl.finish("b.1");
    for (const k of hooks) ctrl.waits.get(k)!.resolve();
    for (const k of hooks) await ctrl.finish(k);
    await runner.idle();
  });

  it("keeps the key locked while it waits: a wake-up then runs it once more afterwards", async () => {
    const ctrl = new Passes();
    const hook = deferred();
    ctrl.waits.set("a.1", hook);
    const runner = new Runner(ctrl, { concurrency: 2 });
    runner.enqueue("a.1");
    await flush();
    runner.enqueue("a.1");
    runner.enqueue("a.1");
    await flush();
    expect(ctrl.started).toEqual(["a.1"]);
    expect(runner.depth).toBe(0);
    let idle = false;
    void runner.idle().then(() => (idle = true));
    hook.resolve();
    await ctrl.finish("a.1");
    expect(ctrl.started).toEqual(["a.1", "a.1"]);
    await ctrl.finish("a.1");
    await flush();
    expect(idle).toBe(true);
  });

  it("a wait that fails takes its slot back before the error reaches the runner (which backs off)", async () => {
    const events: string[] = [];
    const controller: Controller = {
      name: "failing-wait",
      reconcile: async (_key, pass) => {
        await pass!.waiting(() => Promise.reject(new Error("engine gone")));
      },
    };
    const runner = new Runner(controller, { concurrency: 1, log: (e) => events.push(e.type) });
    runner.enqueue("k");
    await runner.idle();
    expect(events).toEqual(["start", "error"]);
    await runner.stop();
  });

  it("stop waits for a waiting pass, which can still take its slot back to finish", async () => {
    const ctrl = new Passes();
    const hook = deferred();
    ctrl.waits.set("a.1", hook);
    const runner = new Runner(ctrl, { concurrency: 1 });
    runner.enqueue("a.1");
    runner.enqueue("b.1");
    await flush();
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    hook.resolve();
    await ctrl.finish("b.1");
    expect(ctrl.resumed).toEqual(["a.1"]);
    expect(stopped).toBe(false);
    await ctrl.finish("a.1");
    await stopping;
    expect(ctrl.started).toEqual(["a.1", "b.1"]);
  });
});
