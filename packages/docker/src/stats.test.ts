import { describe, expect, it } from "vitest";
import v1 from "./fixtures/stats-cgroup1.json";
import v1OneShot from "./fixtures/stats-cgroup1-oneshot.json";
import v2 from "./fixtures/stats-cgroup2.json";
import { type EngineStats, cpuPercent, memoryUsed, readStats } from "./stats";

describe("container stats, from the engine's answers", () => {
  // Captured from Docker 20.10 on cgroup v1 (this project's CI host): an idle busybox httpd with a 64 MiB limit.
  it("cgroup v1, as the engine answered: the limit, memory, network, and CPU between its two readings", () => {
    const r = readStats(v1 as EngineStats, 64 * 1024 * 1024)!;
    expect(r).toMatchObject({ memoryBytes: 733184, memoryLimitBytes: 67108864, netRxBytes: 736, netTxBytes: 0 });
    expect(r.cpu).toEqual({ containerNs: 62776964, systemNs: 59146430000000, onlineCpus: 2 });
    // Idle for the engine's second: 0%.
    expect(cpuPercent(r.precpu, r.cpu)).toBe(0);
  });

  it("a one-shot answer has no previous reading: CPU needs the caller's own, taken a while before", () => {
    const later = readStats(v1OneShot as EngineStats, 64 * 1024 * 1024)!;
    expect(later.precpu).toBeNull();
    const earlier = readStats(v1 as EngineStats, 64 * 1024 * 1024)!;
    expect(cpuPercent(earlier.cpu, later.cpu)).toBe(0);
    expect(readStats(v1OneShot as EngineStats, 0)!.memoryLimitBytes).toBeNull();
  });

  it("cgroup v2: memory without inactive_file, CPU between the engine's two readings, every network summed", () => {
    const r = readStats(v2 as EngineStats, 0)!;
    expect(r.memoryBytes).toBe(52428800 - 16777216);
    // No limit of its own: the engine's "limit" is the host's memory.
    expect(r.memoryLimitBytes).toBeNull();
    expect(r.netRxBytes).toBe(1024);
    expect(r.netTxBytes).toBe(300);
    // 0.5 s of CPU over 2 s of the host's (two CPUs' worth of time): 50% of one CPU.
    expect(cpuPercent(r.precpu, r.cpu)).toBeCloseTo(50, 6);
  });

  it("a container with a limit reports the engine's limit", () => {
    const raw: EngineStats = { ...(v2 as EngineStats), memory_stats: { ...v2.memory_stats, limit: 64 * 1024 * 1024 } };
    expect(readStats(raw, 64 * 1024 * 1024)!.memoryLimitBytes).toBe(64 * 1024 * 1024);
  });

  it("cgroup v1: total_inactive_file comes off, and online_cpus falls back to the per-CPU list", () => {
    const m = { usage: 10_000, stats: { cache: 6000, total_inactive_file: 4000, inactive_file: 1000 } };
    expect(memoryUsed(m)).toBe(6000);
    const raw: EngineStats = { cpu_stats: { cpu_usage: { total_usage: 100, percpu_usage: [1, 2, 3, 4] }, system_cpu_usage: 1000 } };
    expect(readStats(raw, 0)!.cpu.onlineCpus).toBe(4);
  });

  it("memory: a cache figure larger than the usage is ignored, as docker stats does", () => {
    expect(memoryUsed({ usage: 100, stats: { inactive_file: 500 } })).toBe(100);
    expect(memoryUsed(undefined)).toBe(0);
  });

  it("CPU: none without a previous reading, when no time passed or a counter went back (a restart)", () => {
    const cur = { containerNs: 3e9, systemNs: 20e9, onlineCpus: 2 };
    expect(cpuPercent(null, cur)).toBeNull();
    expect(cpuPercent(cur, cur)).toBeNull();
    expect(cpuPercent({ containerNs: 5e9, systemNs: 10e9, onlineCpus: 2 }, cur)).toBeNull();
    // Two full CPUs busy on a two-CPU host.
    expect(cpuPercent({ containerNs: 1e9, systemNs: 18e9, onlineCpus: 2 }, cur)).toBeCloseTo(200, 6);
  });

  it("a stopped container's answer (zeros, no system time) is no reading", () => {
    expect(readStats({ read: "0001-01-01T00:00:00Z", cpu_stats: { cpu_usage: { total_usage: 0 }, system_cpu_usage: 0 }, memory_stats: {} }, 0)).toBeNull();
  });
});
