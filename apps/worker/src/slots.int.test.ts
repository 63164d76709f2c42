import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "@levelrail/services/app/app";
import type { Ctx } from "@levelrail/services/context";
import { deployService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { Labels, instanceFilter } from "@levelrail/spec/naming";
import { seedOrg } from "@levelrail/testkit/seed";
import { startSlowRegistry } from "@levelrail/testkit/slow-registry";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../test/harness";

/**
 * The worker's slots (4) are shared fairly by organizations, and a pass that only waits on the
 * engine (a pre-deploy hook running, an image pulling) holds none: one organization's long hooks or
 * a stalled registry do not hold up another's deploy. A pull has a deadline.
 */
type Place = Ctx & { envId: string };

const PULL_TIMEOUT_SECONDS = 3;
let s: Awaited<ReturnType<typeof setupSuite>>;
let orgB: Awaited<ReturnType<typeof seedOrg>>;
let registry: Awaited<ReturnType<typeof startSlowRegistry>> | undefined;

beforeAll(async () => {
  s = await setupSuite("slots");
  orgB = await seedOrg(s.db, "slots-b", s.kit);
  for (const ctx of [s.ctx, orgB]) await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
  await s.startWorker({ pullTimeoutSeconds: PULL_TIMEOUT_SECONDS, defaultHookTimeoutSeconds: 3600 });
}, 120_000);

afterAll(async () => {
  // The hours-long hooks: the worker stops taking work, their containers go, their passes end.
  const stopping = s?.stopWorker();
  for (const c of await preDeployContainers()) await s.runtime.removeContainer(c.id);
  await stopping;
  await registry?.stop();
  await s?.teardown();
}, 60_000);

const preDeployContainers = async () => (s ? s.runtime.listContainers([...instanceFilter(s.shortName), `${Labels.role}=pre-deploy`]) : []);

const svc = (p: Place, name: string, extra: Record<string, unknown> = {}) =>
  createService({ ctx: p, envId: p.envId, input: { name, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", ...extra } });

/** Deploys `name` in `p` and waits for it to run; how long that took (ms). */
async function deployTimed(p: Place, name: string, timeoutMs: number, input: Record<string, unknown> = {}): Promise<number> {
  const started = Date.now();
  const { id } = await deployService({ ctx: p, envId: p.envId, name, input });
  await waitFor(
    `${name} to run release ${id}`,
    async () => {
      const st = await getStatus({ ctx: p, envId: p.envId, name });
      if (st.lastDeploy?.id === id && st.lastDeploy.outcome === "failed") throw new Error(`deploy failed: ${st.message}`);
      return st.lastDeploy?.id === id && st.lastDeploy.outcome === "succeeded" && st.phase === "running" ? true : undefined;
    },
    { timeoutMs, intervalMs: 20, describe: async () => JSON.stringify(await getStatus({ ctx: p, envId: p.envId, name })) },
  );
  return Date.now() - started;
}

describe("fair worker slots", () => {
  it("organization B's deploy takes about as long as alone while organization A's four pre-deploy hooks run for an hour", async () => {
    await svc(orgB, "alone");
    const alone = await deployTimed(orgB, "alone", 60_000);

    // A fills every slot the old runner had with a pass waiting on an hour-long hook.
    const hooked = ["h1", "h2", "h3", "h4"];
    for (const name of hooked) await svc(s.ctx, name, { hooks: { preDeploy: ["/bin/busybox", "sleep", "3600"] } });
    for (const name of hooked) await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    await waitFor("A's four hooks to run", async () => ((await preDeployContainers()).filter((c) => c.state === "running").length === 4 ? true : undefined), {
      timeoutMs: 60_000,
    });

    await svc(orgB, "beside");
    const beside = await deployTimed(orgB, "beside", alone * 2 + 5000);
    console.log(`B's deploy alone: ${alone} ms; beside A's four running hooks: ${beside} ms`);
    expect(beside).toBeLessThan(alone * 2 + 5000);

    // A's hooks are still running: B did not wait them out.
    expect((await preDeployContainers()).filter((c) => c.state === "running")).toHaveLength(4);
    for (const name of hooked) expect((await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name })).step).toBe("pre-deploy");
  }, 180_000);
});

describe("pull deadline", () => {
  it("a pull from a registry that trickles fails the deploy at the deadline, naming the image, cancels the pull and frees the key", async () => {
    registry = await startSlowRegistry({ byteEveryMs: 300 });
    const name = "slowpull";
    await createService({ ctx: orgB, envId: orgB.envId, input: { name, app: "shop", image: registry.image, port: 8080, healthPath: "/healthz" } });
    const started = Date.now();
    const { id } = await deployService({ ctx: orgB, envId: orgB.envId, name, input: {} });
    const failed = await waitFor(
      "the slow pull to fail",
      async () => {
        const st = await getStatus({ ctx: orgB, envId: orgB.envId, name });
        // The release is marked failed first, then the status.
        return st.lastDeploy?.id === id && st.lastDeploy.outcome === "failed" && st.phase === "failed" ? st : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    const took = Date.now() - started;
    console.log(`slow pull failed after ${took} ms (deadline ${PULL_TIMEOUT_SECONDS}s); layer bytes trickled: ${registry.stats.layerBytesSent}`);
    expect(failed.message).toBe(
      `image ${registry.image} could not be pulled: no complete pull within ${PULL_TIMEOUT_SECONDS}s (LEVELRAIL_PULL_TIMEOUT_SECONDS); the registry is slow or stalled`,
    );
    expect(registry.stats.layerRequests).toBeGreaterThan(0);
    expect(took).toBeGreaterThanOrEqual(PULL_TIMEOUT_SECONDS * 1000);
    expect(took).toBeLessThan(PULL_TIMEOUT_SECONDS * 1000 + 10_000);
    // The engine cancelled the pull: it hung up on the layer download.
    const stats = registry.stats;
    await waitFor("the engine to cancel the layer download", async () => (stats.layerClosedEarly > 0 ? true : undefined), { timeoutMs: 15_000 });

    // The key is free: the next deploy of the service (a local image) goes through.
    await deployTimed(orgB, name, 60_000, { image: IMAGES.v1.tag });
  }, 120_000);
});
