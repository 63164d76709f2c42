import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { release } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { doraMetrics } from "@levelrail/services/metrics/dora";
import { createEnvironment } from "@levelrail/services/project/environment";
import { deployService, promoteService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { ensureTestImage } from "@levelrail/testkit/images";
import { IMAGES, setupSuite } from "../../../test/harness";

/** v1's content, with a build time of its own in the OCI label (what `docker buildx --annotation`/a CI writes). */
const LABELLED = {
  tag: "levelrail-test/web:oci-created",
  body: "v1\n",
  healthy: true,
  labels: { "org.opencontainers.image.created": "2026-01-02T03:04:05Z" },
} as const;

let s: Awaited<ReturnType<typeof setupSuite>>;

beforeAll(async () => {
  s = await setupSuite("imagetime");
  await ensureTestImage(s.runtime.docker, LABELLED);
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  await s.startWorker();
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

/** The newest release of a service (by id). */
async function newest(serviceId: string) {
  const [row] = await s.db.select().from(release).where(eq(release.serviceId, serviceId)).orderBy(desc(release.createdAt)).limit(1);
  return row!;
}

/** Deploys `image` as a new service and answers its succeeded release's row. */
async function deployed(name: string, image: string) {
  await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "shop", image, port: 8080, healthPath: "/healthz" } });
  await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
  expect((await s.waitPhase(name, ["running", "failed"])).phase).toBe("running");
  const row = await newest(await s.serviceId(name));
  expect(row.outcome).toBe("succeeded");
  return row;
}

describe("a real deploy records when its image was built", () => {
  it("the engine's Created time when the image has no OCI label, and lead time runs from it", async () => {
    const rel = await deployed(`plain-${s.shortName}`, IMAGES.v1.tag);
    const engineCreated = new Date((await s.runtime.docker.getImage(IMAGES.v1.tag).inspect()).Created);
    expect(rel.imageCreatedAt?.toISOString()).toBe(engineCreated.toISOString());

    const d = await doraMetrics({ ctx: s.ctx, input: { window: "7d", service: `plain-${s.shortName}` }, now: new Date(Date.now() + 60_000) });
    expect(d.fleet.leadTimeMs).toBe(rel.finishedAt!.getTime() - engineCreated.getTime());
  });

  it("the image's org.opencontainers.image.created label wins over the engine's time", async () => {
    const rel = await deployed(`labelled-${s.shortName}`, LABELLED.tag);
    const engineCreated = (await s.runtime.docker.getImage(LABELLED.tag).inspect()).Created;
    expect(new Date(engineCreated).toISOString()).not.toBe("2026-01-02T03:04:05.000Z");
    expect(rel.imageCreatedAt?.toISOString()).toBe("2026-01-02T03:04:05.000Z");
  });

  it("a promotion carries the build time over with the exact image id", async () => {
    const name = `promo-${s.shortName}`;
    const source = await deployed(name, IMAGES.v2.tag);
    const staging = await createEnvironment({ ctx: s.ctx, projectId: s.ctx.projectId, input: { name: "staging" } });
    await createApp({ ctx: s.ctx, envId: staging.id, input: { name: "shop" } });
    const target = await createService({ ctx: s.ctx, envId: staging.id, input: { name, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    const promoted = await promoteService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { to: staging.id } });
    const row = await newest(target.id);
    expect(row).toMatchObject({ id: promoted.id, kind: "promote", imageId: source.imageId });
    expect(row.imageCreatedAt?.toISOString()).toBe(source.imageCreatedAt?.toISOString());
    expect(row.imageCreatedAt).not.toBeNull();
  });
});
