import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ProbeResult, Prober } from "./ports";
import { type HttpProbeTarget as ProbeTarget, type ProbeTarget as AnyTarget, ProberManager } from "./prober";

const NOW = new Date("2026-03-01T12:00:00Z").getTime();

/** An HTTP endpoint whose answers a test scripts: not ready until `readyAt` (ms since epoch). */
class FakeEndpoint implements Prober {
  readyAt = Number.POSITIVE_INFINITY;
  readonly asked: { url: string; timeoutMs: number }[] = [];
  async probe(url: string, timeoutMs: number): Promise<ProbeResult> {
    this.asked.push({ url, timeoutMs });
    return Date.now() >= this.readyAt ? { ready: true, detail: "HTTP 200" } : { ready: false, detail: "HTTP 503" };
  }
}

const target = (over: Partial<ProbeTarget> = {}): ProbeTarget => ({
  key: "service:svc-1",
  containerId: "c1",
  url: "http://10.201.0.3:8080/healthz",
  since: NOW,
  budgetMs: 10_000,
  ...over,
});

let endpoint: FakeEndpoint;
let woken: string[];
let manager: ProberManager;

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date", "setTimeout", "clearTimeout"] });
  endpoint = new FakeEndpoint();
  woken = [];
  manager = new ProberManager({ probe: (t, ms) => endpoint.probe(t.url, ms), intervalMs: 100, wake: (k) => woken.push(k) });
});
afterEach(() => {
  manager.stop();
  vi.useRealTimers();
});

describe("ProberManager", () => {
  it("probes on its own timer and wakes the key the moment a probe succeeds, then stops probing", async () => {
    endpoint.readyAt = NOW + 350;
    manager.register(target());
    await vi.advanceTimersByTimeAsync(0);
    expect(manager.result("c1")).toEqual({ ready: false, detail: "HTTP 503", at: NOW });
    expect(woken).toEqual([]);
    await vi.advanceTimersByTimeAsync(400);
    // When it was seen ready: a replacement's switch (and its old container's drain) counts from here.
    expect(manager.result("c1")).toEqual({ ready: true, detail: "HTTP 200", at: NOW + 400, done: true });
    expect(woken).toEqual(["service:svc-1"]);
    const probes = endpoint.asked.length;
    expect(probes).toBe(5); // at 0, 100, 200, 300, 400
    await vi.advanceTimersByTimeAsync(5_000);
    expect(endpoint.asked.length).toBe(probes);
    expect(woken).toEqual(["service:svc-1"]);
  });

  it("an adopted container already past its budget still gets one probe before the key is woken", async () => {
    manager.register(target({ since: NOW - 600_000 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(endpoint.asked).toHaveLength(1);
    expect(woken).toEqual(["service:svc-1"]);
  });

  it("wakes the key once the budget is spent, with the last answer, and probes no more", async () => {
    manager.register(target({ budgetMs: 1_000 }));
    await vi.advanceTimersByTimeAsync(999);
    expect(woken).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(woken).toEqual(["service:svc-1"]);
    expect(manager.result("c1")).toEqual({ ready: false, detail: "HTTP 503", at: NOW + 1_000, done: true });
    const probes = endpoint.asked.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(endpoint.asked.length).toBe(probes);
  });

  it("counts the budget from the container's creation, so a worker restart does not extend it", async () => {
    manager.register(target({ since: NOW - 9_950 }));
    await vi.advanceTimersByTimeAsync(50);
    expect(woken).toEqual(["service:svc-1"]);
    // The last probe lands on the deadline; each waits as long as a fresh container's would (2 s at most).
    expect(endpoint.asked.map((a) => a.timeoutMs)).toEqual([2000, 2000]);
  });

  it("registering again keeps the worker and its result; forget stops it and drops the result", async () => {
    manager.register(target());
    manager.register(target({ url: "http://elsewhere/" }));
    await vi.advanceTimersByTimeAsync(0);
    expect(endpoint.asked.map((a) => a.url)).toEqual(["http://10.201.0.3:8080/healthz"]);
    expect(manager.size).toBe(1);
    manager.forget("c1");
    expect(manager.result("c1")).toBeNull();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(endpoint.asked).toHaveLength(1);
    expect(manager.size).toBe(0);
  });

  it("probes containers independently and wakes each one's key", async () => {
    endpoint.readyAt = NOW + 150;
    manager.register(target({ containerId: "a", key: "service:a" }));
    manager.register(target({ containerId: "b", key: "service:b", budgetMs: 100 }));
    await vi.advanceTimersByTimeAsync(200);
    expect(woken).toEqual(["service:b", "service:a"]);
    expect(manager.result("a")?.ready).toBe(true);
    expect(manager.result("b")?.ready).toBe(false);
  });

  it("a final result nobody forgets (its container removed by hand) is dropped after a while", async () => {
    manager = new ProberManager({ probe: (t, ms) => endpoint.probe(t.url, ms), intervalMs: 100, wake: (k) => woken.push(k), retainMs: 60_000 });
    endpoint.readyAt = NOW;
    manager.register(target());
    await vi.advanceTimersByTimeAsync(59_000);
    expect(manager.result("c1")?.ready).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(manager.result("c1")).toBeNull();
    expect(manager.size).toBe(0);
  });

  it("after stop nothing is probed or woken", async () => {
    manager.stop();
    manager.register(target());
    await vi.advanceTimersByTimeAsync(20_000);
    expect(endpoint.asked).toEqual([]);
    expect(woken).toEqual([]);
  });

  it("renew probes a container whose outcome was known again, keeping its last result readable until the new one is in", async () => {
    endpoint.readyAt = NOW;
    manager.register(target());
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(["service:svc-1"]);
    endpoint.readyAt = NOW + 10_000; // it stops answering
    manager.renew(target({ since: NOW + 1 }));
    expect(manager.result("c1")?.ready).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    // Ready before, not now: the key hears it at once, not at the budget's end.
    expect(manager.result("c1")).toMatchObject({ ready: false, detail: "HTTP 503" });
    expect(woken).toEqual(["service:svc-1", "service:svc-1"]);
    manager.renew(target()); // still probing: left as it is
    await vi.advanceTimersByTimeAsync(10_000);
    expect(manager.result("c1")).toMatchObject({ ready: true, done: true });
    expect(woken).toHaveLength(3);
  });

  it("until resolves with the final result; a probe that says it can never be ready ends it at once", async () => {
    const m = new ProberManager<AnyTarget>({
      probe: async (t) => (t.containerId === "gone" ? { ready: false, detail: "exited (code 1)", final: true } : { ready: Date.now() >= NOW + 200, detail: "-" }),
      intervalMs: 100,
      wake: (k) => woken.push(k),
    });
    const ready = m.until({ key: null, containerId: "c1", since: NOW, budgetMs: 10_000 });
    const gone = m.until({ key: null, containerId: "gone", since: NOW, budgetMs: 10_000 });
    await vi.advanceTimersByTimeAsync(0);
    await expect(gone).resolves.toMatchObject({ ready: false, detail: "exited (code 1)", final: true, done: true });
    await vi.advanceTimersByTimeAsync(200);
    await expect(ready).resolves.toMatchObject({ ready: true, done: true });
    expect(woken).toEqual([]); // no key to wake
    const forgotten = m.until({ key: null, containerId: "c2", since: NOW + 10_000, budgetMs: 10_000 });
    m.forget("c2");
    await expect(forgotten).resolves.toMatchObject({ ready: false, final: true });
    m.stop();
  });

  it("a probe that throws reads as not ready, with its reason", async () => {
    const m = new ProberManager<AnyTarget>({ probe: () => Promise.reject(new Error("engine gone")), intervalMs: 100, wake: () => {} });
    m.register({ key: null, containerId: "c1", since: NOW, budgetMs: 1_000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(m.result("c1")).toMatchObject({ ready: false, detail: "engine gone" });
    m.stop();
  });
});
