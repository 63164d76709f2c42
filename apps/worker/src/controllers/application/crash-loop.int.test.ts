import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import { serviceEvent } from "@levelrail/db/schema/observability";
import { createApp } from "@levelrail/services/app/app";
import { putSecret } from "@levelrail/services/env/secrets";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { getStatus } from "@levelrail/services/service/view";
import { REDACTED } from "@levelrail/spec/redact";
import { ensureTestImage } from "@levelrail/testkit/images";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";

/**
 * Serves (and so gets ready and goes live), then after 5 s prints 25 numbered lines and one with its
 * secret, and exits 3: the engine restarts it (`unless-stopped`) again and again. The script runs in
 * the container's own busybox shell; nothing runs through a shell on the host.
 */
const CRASH_AFTER = {
  tag: "levelrail-test/web:crash-after",
  body: "crash-after\n",
  healthy: true,
  cmd: [
    "/bin/busybox",
    "sh",
    "-c",
    '/bin/busybox httpd -p 8080 -h /www; /bin/busybox sleep 5; i=1; while [ $i -le 25 ]; do echo "line $i"; i=$((i+1)); done; echo "fatal: token $TOKEN rejected"; exit 3',
  ],
} as const;
const SECRET = "tok-crash-5e6f7a8b9c";

let s: Awaited<ReturnType<typeof setupSuite>>;
let worker: Awaited<ReturnType<typeof s.startWorker>>;

beforeAll(async () => {
  s = await setupSuite("crashloop");
  await ensureTestImage(s.runtime.docker, CRASH_AFTER);
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  worker = await s.startWorker({ containerMetrics: { intervalMs: 60_000 } });
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

const events = async (name: string) => {
  const id = await s.serviceId(name);
  return s.db.select().from(serviceEvent).where(eq(serviceEvent.serviceId, id)).orderBy(asc(serviceEvent.at));
};

describe("a crash-looping service on the real engine", () => {
  it("is reported with its restarts, last exit and last lines (secret redacted), and recorded once as crash_loop_started; a healthy deploy ends it once", async () => {
    const name = `crash-${s.shortName}`;
    const { ctx } = s;
    await createService({ ctx, envId: ctx.envId, input: { name, app: "shop", image: CRASH_AFTER.tag, port: 8080, healthPath: "/healthz" } });
    await putSecret({ ctx, envId: ctx.envId, name, key: "TOKEN", input: { value: SECRET } });
    const rel = await deployService({ ctx, envId: ctx.envId, name, input: {} });
    await s.waitRelease(name, rel.id);

    const st = await waitFor(
      `${name} to crash-loop`,
      async () => {
        const x = await getStatus({ ctx, envId: ctx.envId, name });
        return x.crashLooping && x.lastLines ? x : undefined;
      },
      { timeoutMs: 90_000, describe: async () => JSON.stringify(await getStatus({ ctx, envId: ctx.envId, name })) },
    );
    expect(st.phase).toBe("running");
    expect(st.restarts).toBeGreaterThanOrEqual(3);
    expect(st.lastExit).toMatchObject({ code: 3, at: expect.any(String) });
    expect(st.lastLines).toHaveLength(20);
    expect(st.lastLines!.at(-1)).toBe(`fatal: token ${REDACTED} rejected`);
    expect(st.lastLines!.at(-2)).toBe("line 25");
    expect(JSON.stringify(st)).not.toContain(SECRET);

    const [started, ...more] = await events(name);
    expect(more).toEqual([]);
    expect(started).toMatchObject({ kind: "crash_loop_started", orgId: ctx.orgId });
    expect(started!.detail).toMatch(/^crash loop started: \d+ restarts; last exit code 3 at /);
    expect(started!.detail).not.toContain(SECRET);

    // It keeps crashing (and the worker keeps looking): still one event.
    const restarts = st.restarts;
    await waitFor("another restart", async () => ((await getStatus({ ctx, envId: ctx.envId, name })).restarts > restarts ? true : undefined), { timeoutMs: 60_000 });
    await worker.resync();
    await worker.application.idle();
    expect((await events(name)).map((e) => e.kind)).toEqual(["crash_loop_started"]);

    // A healthy image goes live: the loop ended, recorded once.
    const fix = await deployService({ ctx, envId: ctx.envId, name, input: { image: IMAGES.v1.tag } });
    await s.waitRelease(name, fix.id);
    await waitFor("crash_loop_ended", async () => ((await events(name)).length === 2 ? true : undefined), { timeoutMs: 10_000 });
    const after = await getStatus({ ctx, envId: ctx.envId, name });
    expect(after).toMatchObject({ crashLooping: false, lastLines: null });
    expect((await events(name)).map((e) => e.kind)).toEqual(["crash_loop_started", "crash_loop_ended"]);
  });

  it("a live container stopped behind the worker's back (the engine will not restart it) is started again after 10 s", async () => {
    const name = `stopped-${s.shortName}`;
    const { ctx } = s;
    await createService({ ctx, envId: ctx.envId, input: { name, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    const rel = await deployService({ ctx, envId: ctx.envId, name, input: {} });
    await s.waitRelease(name, rel.id);
    const [live] = await s.containers(name);
    await s.runtime.docker.getContainer(live!.id).stop({ t: 1 });
    const stoppedAt = Date.now();
    const again = await waitFor(`${name} to run again`, async () => {
      const [c] = await s.containers(name);
      return c?.state === "running" ? c : undefined;
    }, { timeoutMs: 60_000, describe: async () => JSON.stringify(await getStatus({ ctx, envId: ctx.envId, name })) });
    expect(again.id).toBe(live!.id); // the same container, started, not replaced
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(9_000); // the engine's grace first
    expect(await getStatus({ ctx, envId: ctx.envId, name })).toMatchObject({ phase: "running" });
  }, 90_000);
});
