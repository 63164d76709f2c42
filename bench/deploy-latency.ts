/**
 * Deploy latency through the product against the same work done directly
 * with the Docker API, measured in one run on one engine.
 *
 * product:  deploy verb (what POST /api/v1/services/{name}/deploy calls) →
 *           NOTIFY → worker → new container ready and old removed (the worker marks the release
 *           succeeded only after the old container is gone).
 * baseline: create, start, probe, remove old, with dockerode directly.
 */
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { networkName } from "@levelrail/spec/naming";
import { IMAGES, setupSuite } from "@levelrail/worker/harness";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const PROBE_MS = 50;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)}, n=${xs.length})`;

const s = await setupSuite("bench");
const { ctx, runtime, shortName } = s;
const app = await createApp({ ctx, envId: ctx.envId, input: { name: "bench" } });
const network = networkName(shortName, app.id);
const images = [IMAGES.v1, IMAGES.v2];

const reconcileStarts: number[] = [];
let waitingFor: { key: string; t0: number } | null = null;
await s.startWorker({
  drainMs: 0, // the baseline removes the old container at once, so the product does too
  probeIntervalMs: PROBE_MS,
  onEvent: (e) => {
    if (e.type === "start" && waitingFor && e.key === waitingFor.key) {
      reconcileStarts.push(performance.now() - waitingFor.t0);
      waitingFor = null;
    }
  },
});

/** `service` by name (what the verb takes) and id (what its reconcile key carries). */
async function productDeploy(service: { name: string; id: string }, image: string): Promise<number> {
  const t0 = performance.now();
  waitingFor = { key: formatKey(serviceKey(service.id)), t0 };
  const rel = await deployService({ ctx, envId: ctx.envId, name: service.name, input: { image } });
  // Done when this release succeeded and the service is back to running: the worker writes that
  // only after the old container is gone (the release itself succeeds at the switch, before).
  await s.waitRelease(service.name, rel.id);
  return performance.now() - t0;
}

async function baselineDeploy(name: string, image: string, old: string | null): Promise<{ ms: number; id: string }> {
  const t0 = performance.now();
  const c = await runtime.docker.createContainer({
    name,
    Image: image,
    Labels: { "levelrail.managed": "true", "levelrail.instance": shortName },
    HostConfig: { NetworkMode: network },
  });
  await c.start();
  const ip = (await c.inspect()).NetworkSettings.Networks[network]?.IPAddress;
  for (;;) {
    const ok = await fetch(`http://${ip}:8080/healthz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, PROBE_MS));
  }
  if (old) await runtime.docker.getContainer(old).remove({ force: true });
  return { ms: performance.now() - t0, id: c.id };
}

try {
  const service = await createService({ ctx, envId: ctx.envId, input: { name: "bench-web", app: "bench", image: images[0]!.tag, port: 8080, healthPath: "/healthz" } });
  await productDeploy(service, images[0]!.tag); // warm-up, creates the network
  const product: number[] = [];
  const baseline: number[] = [];
  let old: string | null = null;
  for (let i = 0; i < ROUNDS; i++) {
    const image = images[(i + 1) % 2]!.tag;
    product.push(await productDeploy(service, image));
    const b = await baselineDeploy(`${shortName}-baseline-${i}`, image, old);
    baseline.push(b.ms);
    old = b.id;
  }
  if (old) await runtime.docker.getContainer(old).remove({ force: true });
  console.log(`product deploy (API verb → new ready, old removed): ${fmt(product)}`);
  console.log(`baseline deploy (dockerode create, start, probe, remove): ${fmt(baseline)}`);
  console.log(`deploy latency ratio: ${(median(product) / median(baseline)).toFixed(2)}`);
  console.log(`change → reconcile start: ${fmt(reconcileStarts)}`);
} finally {
  await s.teardown();
}
