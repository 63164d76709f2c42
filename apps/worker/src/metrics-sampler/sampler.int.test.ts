import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { containerMetric } from "@levelrail/db/schema/observability";
import { createApp } from "@levelrail/services/app/app";
import { serviceMetrics } from "@levelrail/services/metrics/containers";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { LevelrailError } from "@levelrail/spec/errors";
import { waitFor } from "@levelrail/testkit/wait";
import { freePort } from "@levelrail/testkit/registry";
import { IMAGES, setupSuite } from "../../test/harness";

let s: Awaited<ReturnType<typeof setupSuite>>;
let metricsPort: number;
const MiB = 1024 * 1024;

beforeAll(async () => {
  s = await setupSuite("metrics");
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  metricsPort = await freePort();
  // A short interval: samples within a couple of seconds.
  await s.startWorker({ containerMetrics: { intervalMs: 500 }, metricsPort });
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

const deploy = async (name: string, extra: Record<string, unknown> = {}) => {
  await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", ...extra } });
  await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
  return s.waitPhase(name, ["running"]);
};

const samples = (name: string) => serviceMetrics({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} }).then((m) => m.samples);

describe("container metrics from the real engine", () => {
  it("samples a running service's active container, with its memory limit, and exports the gauges", async () => {
    const limited = `met-${s.shortName}`;
    const free = `free-${s.shortName}`;
    const st = await deploy(limited, { resources: { memoryMb: 64 } });
    await deploy(free);
    const got = await waitFor(`two samples of ${limited}`, async () => {
      const xs = await samples(limited);
      return xs.length >= 2 ? xs : undefined;
    }, { timeoutMs: 20_000 });
    const last = got.at(-1)!;
    expect(last.container).toBe(st.activeContainer);
    expect(last.memoryLimitBytes).toBe(64 * MiB);
    expect(last.memoryBytes).toBeGreaterThan(0);
    expect(last.memoryBytes).toBeLessThan(64 * MiB);
    expect(last.cpuPercent).toBeGreaterThanOrEqual(0);
    expect(last.netRxBytes).toBeGreaterThanOrEqual(0);
    // No limit of its own: none reported (not the host's memory).
    const unlimited = await waitFor(`a sample of ${free}`, async () => (await samples(free)).at(-1));
    expect(unlimited.memoryLimitBytes).toBeNull();

    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const id = await s.serviceId(limited);
    expect(text).toContain(`levelrail_container_memory_limit_bytes{service_id="${id}",service="${limited}",environment_id="${s.ctx.envId}",environment="production"} ${64 * MiB}`);
    expect(text).toMatch(new RegExp(`levelrail_container_cpu_percent\\{service_id="${id}",[^}]*\\} [0-9.]+`));
    expect(text).toMatch(new RegExp(`levelrail_container_network_receive_bytes\\{service_id="${id}",[^}]*\\} [0-9]+`));
  });

  it("deletes samples older than the retention window (an hour)", async () => {
    const name = `met-${s.shortName}`;
    const id = await s.serviceId(name);
    const old = new Date(Date.now() - 2 * 3_600_000);
    await s.db.insert(containerMetric).values({ serviceId: id, container: "old", at: old, cpuPercent: 1, memoryBytes: 1, memoryLimitBytes: null, netRxBytes: 0, netTxBytes: 0 });
    const since = new Date(Date.now() - 3 * 3_600_000).toISOString();
    expect((await serviceMetrics({ ctx: s.ctx, envId: s.ctx.envId, name, input: { since } })).samples.some((x) => x.container === "old")).toBe(true);
    await waitFor("the old sample to go", async () => {
      const xs = (await serviceMetrics({ ctx: s.ctx, envId: s.ctx.envId, name, input: { since } })).samples;
      return xs.some((x) => x.container === "old") ? undefined : true;
    }, { timeoutMs: 10_000 });
  });

  it("the API: a bad since is a 400 naming it; a service of another organization's environment is not found", async () => {
    const name = `met-${s.shortName}`;
    await expect(serviceMetrics({ ctx: s.ctx, envId: s.ctx.envId, name, input: { since: "yesterday" } })).rejects.toMatchObject({ code: "invalid_input", field: "since" });
    const stranger = { ...s.ctx, actor: { ...s.ctx.actor, orgIds: [] } };
    await expect(serviceMetrics({ ctx: stranger, envId: s.ctx.envId, name, input: {} })).rejects.toBeInstanceOf(LevelrailError);
    await expect(serviceMetrics({ ctx: stranger, envId: s.ctx.envId, name, input: {} })).rejects.toMatchObject({ code: "not_found" });
  });
});
