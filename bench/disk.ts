/**
 * Disk over 100 deploys of distinct images (issue 12): 5 services, 20 pulled images each, every
 * image pulled for real from a loopback registry (Debian's docker-registry). Each image is a shared
 * busybox base plus a layer of its own (512 KiB of random bytes), so each pull adds that much disk.
 *
 * - disk growth: the bytes the bench's images hold on the engine beyond what they share with
 *   others (the engine's `/system/df`: Size − SharedSize of each), after the deploys, before and
 *   after the product's collection (the worker restarted with no grace period, which collects at
 *   start). Before collection is the baseline: Levelrail before it removed any image.
 * - images removed that we did not pull: of 10 images built on this host (5 deployed once and then
 *   superseded, 5 never deployed), plus the base, how many are gone at the end. Target 0.
 */
import { randomBytes } from "node:crypto";
import { createApp } from "@levelrail/services/app/app";
import { createRegistryCredential } from "@levelrail/services/config/registry-credentials";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { IMAGES_KEY, formatKey } from "@levelrail/spec/keys";
import { ensureTestImage } from "@levelrail/testkit/images";
import { startRegistry } from "@levelrail/testkit/registry";
import { setupSuite } from "@levelrail/worker/harness";

const SERVICES = 5;
const PER_SERVICE = Number(process.env.BENCH_DISK_DEPLOYS ?? 20);
const KEEP = 3;
const UNIQUE_BYTES = 512 * 1024;
const MiB = 1024 * 1024;

async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

const s = await setupSuite("benchdisk");
const { docker } = s.runtime;
const registry = await startRegistry();
const auth = { username: registry.username, password: registry.password, serveraddress: registry.server };
const repo = `bench-disk-${s.shortName}`;
const base = `levelrail-test/${repo}-base:v1`;
const pulledRefs: string[] = [];
const foreign: string[] = [];

/** What the engine holds for these images beyond what they share with others, in bytes. */
async function ownBytes(tags: Set<string>): Promise<number> {
  const df = (await docker.df()) as { Images: { RepoTags: string[] | null; Size: number; SharedSize: number }[] };
  return df.Images.filter((i) => (i.RepoTags ?? []).some((t) => tags.has(t))).reduce((n, i) => n + i.Size - Math.max(0, i.SharedSize), 0);
}

try {
  const t0 = performance.now();
  await ensureTestImage(docker, { tag: base, body: "base\n", healthy: true });
  const unique = (i: string) => ({ "blob": randomBytes(UNIQUE_BYTES), "www/version": `${i}\n` });
  for (let i = 0; i < 10; i++) {
    const tag = `levelrail-test/${repo}-local:l${i}`;
    await ensureTestImage(docker, { tag, from: base, body: `local ${i}\n`, healthy: true, files: unique(`l${i}`) });
    foreign.push(tag);
  }
  const refs = Array.from({ length: SERVICES * PER_SERVICE }, (_, i) => `${registry.server}/${repo}/web:v${i}`);
  await pool(refs, 4, async (ref) => {
    await ensureTestImage(docker, { tag: ref, from: base, body: `${ref}\n`, healthy: true, files: unique(ref) });
    const push = await docker.getImage(ref).push({ authconfig: auth });
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(push, (err: Error | null, out: { error?: string }[]) => (err || out.some((o) => o.error) ? reject(err ?? new Error("push failed")) : resolve())),
    );
    await docker.getImage(ref).remove(); // its only tag: the worker has to pull it
    pulledRefs.push(ref);
  });
  console.log(`built and pushed ${refs.length} images in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  const tags = new Set([...refs, ...foreign, base]);
  const before = await ownBytes(tags);
  // Collection that never removes during the deploys (a fresh pull is left alone for an hour), as before it existed.
  await s.startWorker({ drainMs: 0, images: { keepReleases: KEEP, graceMs: 3_600_000 } });
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "disk" } });
  const cred = await createRegistryCredential({ ctx: s.ctx, input: { name: "disk", server: registry.server, username: registry.username, password: registry.password } });
  const services = Array.from({ length: SERVICES }, (_, i) => `web${i}`);
  for (const [i, name] of services.entries()) {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "disk", image: foreign[i]!, port: 8080, healthPath: "/healthz", registryCredentialId: cred.id } });
  }
  const deploy = async (name: string, image: string) => {
    const rel = await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image } });
    await s.waitRelease(name, rel.id, { timeoutMs: 300_000, intervalMs: 50 });
  };
  const t1 = performance.now();
  // Each service first runs a locally built image (superseded later), then 20 pulled ones in turn.
  await Promise.all(services.map(async (name, i) => {
    await deploy(name, foreign[i]!);
    for (let k = 0; k < PER_SERVICE; k++) await deploy(name, refs[k * SERVICES + i]!);
  }));
  console.log(`${refs.length} deploys of distinct pulled images (+${SERVICES} of local ones) in ${((performance.now() - t1) / 1000).toFixed(0)} s`);

  const uncollected = await ownBytes(tags);
  // The product's collection: the worker again, with no grace period; it collects once at start.
  await s.stopWorker();
  const worker = await s.startWorker({ drainMs: 0, images: { keepReleases: KEEP, graceMs: 0 } });
  worker.images.enqueue(formatKey(IMAGES_KEY));
  await worker.images.idle();
  const collected = await ownBytes(tags);

  const onHost = async (tag: string) => (await s.runtime.imageId(tag)) !== null;
  const removedForeign = (await Promise.all([...foreign, base].map(onHost))).filter((x) => !x).length;
  const pulledLeft = (await Promise.all(refs.map(onHost))).filter(Boolean).length;
  const growth = (collected - before) / MiB;
  const baseline = (uncollected - before) / MiB;
  const target = (SERVICES * KEEP * UNIQUE_BYTES) / MiB;
  console.log(`disk growth: ${growth.toFixed(1)} MiB (after collection; target: about the last ${KEEP} releases of ${SERVICES} services, ${target.toFixed(1)} MiB of unique layers)`);
  console.log(`disk growth without collection (baseline): ${baseline.toFixed(1)} MiB`);
  console.log(`disk growth ratio (collected / baseline): ${(growth / baseline).toFixed(3)}`);
  console.log(`pulled images left on the host: ${pulledLeft} of ${refs.length}`);
  console.log(`images removed that we did not pull: ${removedForeign} (of ${foreign.length + 1} built on this host)`);
} finally {
  await s.teardown();
  await registry.stop();
  // Only the bench's own images.
  for (const tag of [...pulledRefs, ...foreign, base]) await docker.getImage(tag).remove({ force: true }).catch(() => {});
}
