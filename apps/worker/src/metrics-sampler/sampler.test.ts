import { describe, expect, it } from "vitest";
import { FakeEngine } from "@levelrail/docker/fake";
import { type ContainerSample, MetricsSampler, type SampleTarget, eachLimited, sampleTargets } from "./sampler";

const target = (n: number): SampleTarget => ({ serviceId: `svc-${n}`, service: `web${n}`, environmentId: "env", environment: "production", containerId: `id-c${n}`, container: `c${n}` });

function world(n: number) {
  const engine = new FakeEngine();
  for (let i = 0; i < n; i++) engine.add({ name: `c${i}`, state: "running", options: i === 0 ? { HostConfig: { Memory: 64 << 20 } } : {} });
  const stored: ContainerSample[] = [];
  const pruned: Date[] = [];
  let now = 1_000_000;
  let targets = Array.from({ length: n }, (_, i) => target(i));
  // The engine's clock is the test's (its default readings count the host's CPU time from it).
  engine.now = () => now;
  const rounds: number[] = [];
  const sampler = new MetricsSampler({
    runtime: engine,
    targets: async () => targets,
    store: {
      insert: async (s) => void stored.push(...s),
      prune: async (before) => void pruned.push(before),
    },
    intervalMs: 10_000,
    retentionMs: 3_600_000,
    concurrency: 4,
    onRound: (taken) => rounds.push(taken.length),
    now: () => now,
    log: () => {},
  });
  const reading = (i: number, containerNs: number, systemNs: number) =>
    engine.stats.set(`id-c${i}`, { cpu: { containerNs, systemNs, onlineCpus: 2 }, precpu: null, memoryBytes: 1000 * (i + 1), memoryLimitBytes: null, netRxBytes: 10, netTxBytes: 20 });
  return { engine, sampler, stored, pruned, rounds, reading, tick: (ms: number) => (now += ms), setTargets: (t: SampleTarget[]) => (targets = t) };
}

describe("metrics sampler", () => {
  it("a container's first reading starts its CPU counter; the next gives a sample of every figure; old samples are pruned", async () => {
    const w = world(2);
    w.reading(0, 1e9, 100e9);
    w.reading(1, 0, 100e9);
    expect(await w.sampler.round()).toEqual([]);
    expect(w.pruned).toEqual([new Date(1_000_000 - 3_600_000)]);
    w.tick(10_000);
    // c0: 1 s of CPU over 10 s of both CPUs' time (20 s): 10% of one CPU.
    w.reading(0, 2e9, 120e9);
    w.reading(1, 0, 120e9);
    const got = await w.sampler.round();
    expect(got).toEqual([
      { serviceId: "svc-0", container: "c0", at: new Date(1_010_000), cpuPercent: 10, memoryBytes: 1000, memoryLimitBytes: null, netRxBytes: 10, netTxBytes: 20 },
      { serviceId: "svc-1", container: "c1", at: new Date(1_010_000), cpuPercent: 0, memoryBytes: 2000, memoryLimitBytes: null, netRxBytes: 10, netTxBytes: 20 },
    ]);
    expect(w.stored).toEqual(got);
    expect(w.rounds).toEqual([0, 2]);
  });

  it("a container gone or stopped is skipped; one no longer active is forgotten (its next reading starts over)", async () => {
    const w = world(2);
    await w.sampler.round();
    await w.engine.stopContainer("id-c1");
    w.tick(10_000);
    expect((await w.sampler.round()).map((s) => s.container)).toEqual(["c0"]);
    // The fake's default reading: its memory limit from its options.
    expect(w.stored[0]).toMatchObject({ memoryLimitBytes: 64 << 20 });
    w.setTargets([]);
    await w.sampler.round();
    w.setTargets([target(0)]);
    expect(await w.sampler.round()).toEqual([]);
  });

  it("targets: the status's active container when it runs, by its id from the index", async () => {
    const containers = {
      byService: (id: string) =>
        id === "s1" ? [{ id: "x1", name: "c-old", state: "running" }, { id: "x2", name: "c-new", state: "running" }] : id === "s2" ? [{ id: "y", name: "c2", state: "restarting" }] : [],
    } as unknown as Parameters<typeof sampleTargets>[1];
    const active = async () => [
      { serviceId: "s1", service: "a", environmentId: "e", environment: "p", container: "c-new" },
      { serviceId: "s2", service: "b", environmentId: "e", environment: "p", container: "c2" },
      { serviceId: "s3", service: "c", environmentId: "e", environment: "p", container: "gone" },
    ];
    expect(await sampleTargets(active, containers)()).toEqual([{ serviceId: "s1", service: "a", environmentId: "e", environment: "p", container: "c-new", containerId: "x2" }]);
  });

  it("bounds the stats calls in flight", async () => {
    let inFlight = 0;
    let most = 0;
    await eachLimited([...Array(20).keys()], 3, async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
    });
    expect(most).toBe(3);
  });

  it("refuses a retention window beyond a day", () => {
    expect(() => new MetricsSampler({ runtime: new FakeEngine(), targets: async () => [], store: { insert: async () => {}, prune: async () => {} }, intervalMs: 1, retentionMs: 48 * 3_600_000, concurrency: 1, log: () => {} })).toThrow(/retention/);
  });
});
