import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MetricsSampler } from "./sampler";
import { readNodeStats, swarmSampling } from "./swarm-targets";

const dir = mkdtempSync(join(tmpdir(), "lr-node-stats-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const reading = (taskId: string, containerNs: number, systemNs: number) => ({
  taskId,
  container: `lr-web-abc.1.${taskId}`,
  stats: { cpu: { containerNs, systemNs, onlineCpus: 2 }, precpu: null, memoryBytes: 1024, memoryLimitBytes: null, netRxBytes: 10, netTxBytes: 5 },
});

describe("metrics per task on a swarm", () => {
  it("reads the node agents' fresh readings; stale and broken files are skipped", () => {
    mkdirSync(join(dir, "stats"), { recursive: true });
    writeFileSync(join(dir, "stats", "n2.json"), JSON.stringify({ at: 100_000, readings: [reading("t2", 1, 10)] }));
    writeFileSync(join(dir, "stats", "n3.json"), JSON.stringify({ at: 10_000, readings: [reading("t3", 1, 10)] }));
    writeFileSync(join(dir, "stats", "n4.json"), "{");
    expect(readNodeStats(join(dir, "stats"), 110_000).map((r) => r.taskId)).toEqual(["t2"]);
    expect(readNodeStats(join(dir, "missing"), 110_000)).toEqual([]);
  });

  it("each task of the active release is sampled as its container, CPU between its own readings; a task with no reading is left out", async () => {
    let round = 0;
    const sampling = swarmSampling({
      active: async () => [{ serviceId: "s1", service: "web", environmentId: "e1", environment: "prod", container: "lr-web-abc" }],
      tasksOf: () => [{ name: "t1" }, { name: "t2" }, { name: "t9" }],
      readings: async () => [reading("t1", 1_000 * (round + 1), 10_000 * (round + 1)), reading("t2", 500 * (round + 1), 10_000 * (round + 1))],
    });
    const inserted: { container: string; cpuPercent: number }[] = [];
    const sampler = new MetricsSampler({
      runtime: sampling.runtime,
      targets: sampling.targets,
      store: { insert: async (s) => void inserted.push(...s), prune: async () => {} },
      intervalMs: 10_000,
      retentionMs: 3_600_000,
      concurrency: 4,
      log: () => {},
    });
    expect(await sampler.round()).toEqual([]); // first readings: nothing to compute CPU from
    round = 1;
    await sampler.round();
    expect(inserted.map((s) => [s.container, s.cpuPercent])).toEqual(expect.arrayContaining([["lr-web-abc.1.t1", 20], ["lr-web-abc.1.t2", 10]]));
    expect(inserted).toHaveLength(2);
  });
});
