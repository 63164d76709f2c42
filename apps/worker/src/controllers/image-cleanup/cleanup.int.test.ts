import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { pulledImage } from "@levelrail/db/schema/fleet";
import { createApp } from "@levelrail/services/app/app";
import { createRegistryCredential } from "@levelrail/services/config/registry-credentials";
import { deployService, rollbackService } from "@levelrail/services/release/deploy";
import { createService, deleteService } from "@levelrail/services/service/write";
import { IMAGES_KEY, formatKey } from "@levelrail/spec/keys";
import { ensureTestImage } from "@levelrail/testkit/images";
import { startRegistry } from "@levelrail/testkit/registry";
import { waitFor } from "@levelrail/testkit/wait";
import { setupSuite } from "../../../test/harness";

/**
 * Image collection on the real engine, the images pulled for real from a loopback registry. A
 * service goes through five images; with two succeeded releases kept, only the oldest pulled image
 * that nothing else claims goes. An image built here and deployed (never pulled), a pulled one the
 * operator tagged too, and a pulled one a container outside Levelrail uses all stay.
 */
const KEEP = 2;
let s: Awaited<ReturnType<typeof setupSuite>>;
let worker: Awaited<ReturnType<typeof s.startWorker>>;
let registry: Awaited<ReturnType<typeof startRegistry>>;
/** Five images in the registry, none on the host until the worker pulls it. */
const refs: string[] = [];
let localTag: string;
let operatorTag: string;
let stranger: string | null = null;

beforeAll(async () => {
  s = await setupSuite("imagegc");
  registry = await startRegistry();
  const auth = { username: registry.username, password: registry.password, serveraddress: registry.server };
  for (let i = 1; i <= 5; i++) {
    const ref = `${registry.server}/gc-${s.shortName}/web:v${i}`;
    await ensureTestImage(s.runtime.docker, { tag: ref, body: `gc ${s.shortName} v${i}\n`, healthy: true });
    const push = await s.runtime.docker.getImage(ref).push({ authconfig: auth });
    await new Promise<void>((resolve, reject) =>
      s.runtime.docker.modem.followProgress(push, (err: Error | null, out: { error?: string }[]) =>
        err || out.some((o) => o.error) ? reject(err ?? new Error(out.find((o) => o.error)?.error)) : resolve(),
      ),
    );
    await s.runtime.docker.getImage(ref).remove(); // its only tag: the image goes, and the worker has to pull it
    refs.push(ref);
  }
  localTag = `levelrail-test/gc-local-${s.shortName}:v1`;
  await ensureTestImage(s.runtime.docker, { tag: localTag, body: `local ${s.shortName}\n`, healthy: true });
  operatorTag = `levelrail-test/gc-operator-${s.shortName}:keep`;
  worker = await s.startWorker({ images: { keepReleases: KEEP, graceMs: 0, intervalMs: 3_600_000 } });
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  const cred = await createRegistryCredential({ ctx: s.ctx, input: { name: "gc", server: registry.server, username: registry.username, password: registry.password } });
  await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "web", app: "shop", image: refs[0], port: 8080, healthPath: "/healthz", registryCredentialId: cred.id } });
  await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "local", app: "shop", image: localTag, port: 8080, healthPath: "/healthz" } });
}, 180_000);

afterAll(async () => {
  await s?.teardown();
  await registry?.stop();
  // Only what this suite made: its stranger container and its own tags.
  if (stranger) await s?.runtime.removeContainer(stranger);
  for (const tag of [...refs, localTag, operatorTag]) await s?.runtime.docker.getImage(tag).remove({ force: true }).catch(() => {});
}, 120_000);

/** One full collection pass that starts after everything committed so far. */
const collect = async () => {
  worker.images.enqueue(formatKey(IMAGES_KEY));
  await worker.images.idle();
};
const deploy = async (name: string, image: string) => {
  const rel = await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image } });
  await s.waitRelease(name, rel.id);
  await waitFor(`${name}'s old containers to go`, async () => ((await s.containers(name)).length === 1 ? true : undefined));
};
const onHost = async (ref: string) => (await s.runtime.imageId(ref)) !== null;
const recorded = async () => (await s.db.select().from(pulledImage)).map((r) => r.ref).sort();

describe("image collection", () => {
  it("removes only the pulled image no kept release needs and nothing else claims; a rollback to a kept one pulls nothing", async () => {
    // Built here and deployed, never pulled; then its service goes, so no release or container needs it.
    await deploy("local", localTag);
    await deleteService({ ctx: s.ctx, envId: s.ctx.envId, name: "local" });
    await waitFor("the deleted service's container to go", async () => ((await s.containers("local")).length === 0 ? true : undefined));

    for (const [i, ref] of refs.entries()) {
      await deploy("web", ref);
      expect(await recorded()).toContain(ref); // the worker pulled it: ours
      if (i === 0) await s.runtime.docker.getImage(ref).tag({ repo: operatorTag.split(":")[0]!, tag: "keep" }); // the operator's own tag
      if (i === 1) stranger = (await s.runtime.docker.createContainer({ name: `gc-stranger-${s.shortName}`, Image: ref })).id; // not Levelrail's
      await collect();
    }

    const [v1, v2, v3, v4, v5] = refs as [string, string, string, string, string];
    expect(await onHost(v3)).toBe(false); // pulled, older than the last two succeeded releases, claimed by nothing
    expect(await recorded()).toEqual([v1, v2, v4, v5].sort()); // its record went with it; the local image never had one
    expect(await onHost(v4)).toBe(true); // rollback target
    expect(await onHost(v5)).toBe(true); // current
    expect(await onHost(v1)).toBe(true); // the operator tagged it too
    expect(await onHost(operatorTag)).toBe(true);
    expect(await onHost(v2)).toBe(true); // a container outside Levelrail uses it
    expect(await onHost(localTag)).toBe(true); // never pulled by us
    expect(s.logs.join("\n")).toContain(`[image-cleanup] removed 1 pulled image(s)`);
    expect(s.logs.join("\n")).not.toContain("in use after all"); // never tried: the engine's refusal is only the last line of defence

    // Rollback to v4 runs from the engine's cache: no pull (a pull would record it again, later).
    const [before] = await s.db.select().from(pulledImage).where(eq(pulledImage.ref, v4));
    const back = await rollbackService({ ctx: s.ctx, envId: s.ctx.envId, name: "web" });
    await s.waitRelease("web", back.id);
    const [after] = await s.db.select().from(pulledImage).where(eq(pulledImage.ref, v4));
    expect(after?.pulledAt).toEqual(before?.pulledAt);
    await collect();
    expect(await onHost(v5)).toBe(true); // now a rollback target itself
  }, 300_000);
});
