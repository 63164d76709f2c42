import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "@levelrail/services/app/app";
import { getHookRun, listHookRuns } from "@levelrail/services/hooks/list";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { Labels, instanceFilter } from "@levelrail/spec/naming";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";
import { MAX_OUTPUT_BYTES } from "./hooks";

/**
 * A hook that prints without end: the engine rotates its log, the worker holds only the last 1 MiB
 * as it streams past (its memory stays flat), and the run keeps that tail after a marker.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;

beforeAll(async () => {
  s = await setupSuite("hookout");
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  await s.startWorker();
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

const MiB = 1024 * 1024;
const PRINTED = 200 * MiB;
const MARKER = /^\[levelrail: output truncated: earlier output was dropped; the last 1 MiB follows\]\n/;

// A full collection on demand, so a sample counts what the worker holds, not garbage not yet collected.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** What the worker (in this process) holds after a full collection: the JS heap and its Buffers. */
const memory = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** Samples `memory()` while `work` runs; resolves to its peak growth in MiB. */
async function peakGrowth(work: () => Promise<void>): Promise<number> {
  const baseline = memory();
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, memory())), 1000);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return (Math.max(peak, memory()) - baseline) / MiB;
}

/** A hook printing `bytes` of numbered-looking lines, then `LAST-LINE`, then `then` (argv inside the container; no host shell). */
const printing = (bytes: number, then: string) => [
  "/bin/sh",
  "-c",
  `/bin/busybox yes 'hook output line 0123456789 abcdefghijklmnopqrstuvwxyz' | /bin/busybox head -c ${bytes}; echo LAST-LINE; ${then}`,
];

async function lastRun(service: string) {
  const { runs: [run] } = await listHookRuns({ ctx: s.ctx, envId: s.ctx.envId, app: "shop", input: { service, limit: 1 } });
  return getHookRun({ ctx: s.ctx, id: run!.id });
}

describe("hook output on the real engine", () => {
  it("a hook printing 200 MB: the worker's memory stays flat, the run keeps the last 1 MiB after a marker, the engine rotates the log", async () => {
    const name = `loud-${s.shortName}`;
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", hooks: { preDeploy: printing(PRINTED, "exit 0"), timeoutSeconds: 600 } } });
    let logConfig: unknown = null;
    const growth = await peakGrowth(async () => {
      await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
      // The hook container, while it runs: its log is rotated by the engine.
      const hook = await waitFor(
        "the hook container",
        async () => (await s.runtime.listContainers([...instanceFilter(s.shortName), `${Labels.role}=pre-deploy`]))[0],
        { timeoutMs: 30_000 },
      );
      logConfig = (await s.runtime.docker.getContainer(hook.id).inspect()).HostConfig.LogConfig;
      expect((await s.waitPhase(name, ["running", "failed"], 300_000)).phase).toBe("running");
    });
    expect(logConfig).toEqual({ Type: "json-file", Config: { "max-size": "4m", "max-file": "2" } });

    const run = await lastRun(name);
    expect(run.outcome).toBe("succeeded");
    const kept = run.output.replace(MARKER, "");
    expect(run.output).toMatch(MARKER);
    expect(kept.endsWith("LAST-LINE\n")).toBe(true);
    expect(kept.startsWith("hook output line")).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(Buffer.byteLength(kept)).toBeGreaterThan(MAX_OUTPUT_BYTES - 1024);
    // 200 MiB went past; holding it would have grown the worker by at least that much.
    console.log(`hook printed ${PRINTED / MiB} MiB; worker memory held at most ${growth.toFixed(1)} MiB more than before`);
    expect(growth).toBeLessThan(32);
  }, 360_000);

  it("a hook that prints 4 MiB and then hangs past its timeout: killed, and the run keeps the last 1 MiB, read within the engine's rotation", async () => {
    const name = `hang-${s.shortName}`;
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", hooks: { preDeploy: printing(4 * MiB, "exec /bin/busybox sleep 3600"), timeoutSeconds: 40 } } });
    const growth = await peakGrowth(async () => {
      await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
      expect((await s.waitPhase(name, ["running", "failed"], 120_000)).phase).toBe("failed");
    });
    const run = await lastRun(name);
    expect(run.outcome).toBe("timed_out");
    const kept = run.output.replace(MARKER, "");
    expect(run.output).toMatch(MARKER);
    expect(kept.endsWith("LAST-LINE\n")).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    console.log(`timed-out hook printed 4 MiB; worker memory held at most ${growth.toFixed(1)} MiB more than before`);
    expect(growth).toBeLessThan(32);
  }, 180_000);
});
