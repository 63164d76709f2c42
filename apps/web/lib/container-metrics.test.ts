import { describe, expect, it } from "vitest";
import { formatBytes, latestAndPeak, linePath, serviceSeries } from "./container-metrics";

const sample = (at: number, container: string, rx: number, tx: number, more: { cpu?: number; memory?: number; limit?: number | null } = {}) => ({
  at: new Date(at * 1000).toISOString(),
  container,
  cpuPercent: more.cpu ?? 0,
  memoryBytes: more.memory ?? 0,
  memoryLimitBytes: more.limit ?? null,
  netRxBytes: rx,
  netTxBytes: tx,
});

describe("container metrics for the charts", () => {
  it("network: bytes per second between samples of one container; a new container starts a new line", () => {
    const { rx, tx, containers } = serviceSeries([sample(0, "a", 0, 0), sample(10, "a", 1000, 100), sample(20, "b", 50, 5), sample(30, "b", 250, 25)]);
    expect(rx.map((p) => p.v)).toEqual([null, 100, null, 20]);
    expect(tx.map((p) => p.v)).toEqual([null, 10, null, 2]);
    expect(containers).toBe(1);
  });

  it("a swarm release's tasks: each round is the sum of its tasks, network rates taken per task", () => {
    const s = serviceSeries([
      sample(0, "web.1.t1", 0, 0, { cpu: 10, memory: 100, limit: 1000 }),
      sample(0, "web.2.t2", 0, 0, { cpu: 30, memory: 300, limit: 1000 }),
      sample(10, "web.1.t1", 1000, 100, { cpu: 20, memory: 200, limit: 1000 }),
      sample(10, "web.2.t2", 500, 50, { cpu: 40, memory: 400, limit: null }),
    ]);
    expect(s.cpu.map((p) => p.v)).toEqual([40, 60]);
    expect(s.memory.map((p) => p.v)).toEqual([400, 600]);
    expect(s.limits.map((p) => p.v)).toEqual([2000, null]);
    expect(s.rx.map((p) => p.v)).toEqual([null, 150]);
    expect(s.tx.map((p) => p.v)).toEqual([null, 15]);
    expect(s.containers).toBe(2);
  });

  it("a line breaks at nulls and at long gaps", () => {
    const pts = [
      { t: 0, v: 1 },
      { t: 10, v: 2 },
      { t: 20, v: null },
      { t: 30, v: 3 },
      { t: 100, v: 4 },
    ];
    expect(linePath(pts, (t) => t, (v) => v, 30)).toBe("M0.0,1.0L10.0,2.0M30.0,3.0M100.0,4.0");
  });

  it("formats bytes and summarises a series", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(64 * 1024 * 1024)).toBe("64 MiB");
    expect(latestAndPeak([{ t: 0, v: 5 }, { t: 1, v: 9 }, { t: 2, v: 3 }, { t: 3, v: null }])).toEqual({ latest: 3, peak: 9 });
  });
});
