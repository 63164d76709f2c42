/**
 * A Docker Swarm against one engine, in one run, on engines this benchmark starts itself
 * (@levelrail/testkit/swarm: three dockerd in network namespaces, a registry on their bridge; as root).
 *
 * swarm deploy:    SwarmPort.updateService of a 2-replica service to the other image (start-first)
 *                  → both new tasks running and every old one gone (also shown: until the new run).
 * baseline deploy: the same work on one of those engines with plain containers: create and start 2
 *                  of the new image on the same overlay, remove the 2 old.
 * cutover failures: a loop of GETs of the service's name (from a container on its network) through
 *                  every swarm deploy; any answer but a body is a failure.
 * node loss recovery: a worker holding a task is cut off (its veth down) → the replicas run again
 *                  on the others (1 s heartbeat).
 *
 * `npm run bench -- swarm` (not part of a plain `npm run bench`); BENCH_ROUNDS (default 6).
 */
import { randomBytes } from "node:crypto";
import { dockerRuntime } from "@levelrail/docker";
import { type SwarmPort, type SwarmServiceSpec, dockerSwarm } from "@levelrail/docker/swarm";
import { Labels, networkLabels, networkName, serviceLabels } from "@levelrail/spec/naming";
import { startSwarm } from "@levelrail/testkit/swarm";
import { waitFor } from "@levelrail/testkit/wait";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const REPLICAS = 2;
const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
const app = `bench${run}`;
const net = networkName(short, app);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)}, n=${xs.length})`;

const h = await startSwarm({ shortName: short, nodes: 3, heartbeatSeconds: 1 });
try {
  const swarm: SwarmPort = dockerSwarm({ dockerHost: h.manager.dockerHost });
  const images = [
    await h.pushTestImage({ tag: `${short}-bench/web:v1`, body: "v1\n", healthy: true }),
    await h.pushTestImage({ tag: `${short}-bench/web:v2`, body: "v2\n", healthy: true }),
  ] as const;
  for (const n of await swarm.listNodes()) await swarm.updateNode(n.id, { labels: { [`${short}.zone`]: n.address } });
  await swarm.createOverlayNetwork({ name: net, labels: networkLabels(short, app), subnet: "10.232.210.0/26", gateway: "10.232.210.1", encrypted: false, mtu: 1450 });
  const owner = { serviceId: `svc-${run}`, appId: app, environmentId: "bench", releaseId: "bench" };
  const spec = (image: string): SwarmServiceSpec => ({
    name: `${short}-bench-${run}`,
    image,
    replicas: REPLICAS,
    labels: serviceLabels(short, owner, "service"),
    containerLabels: serviceLabels(short, owner, "service"),
    env: {},
    networks: [{ target: net, aliases: ["web"] }],
    constraints: [],
    spreadOver: [`node.labels.${short}.zone`],
    secrets: [],
    updateOrder: "start-first",
    stopGraceSeconds: 1,
    endpointMode: "dnsrr",
  });
  /** Every task meant to run is of `image` and running, `REPLICAS` of them. */
  const converged = async (id: string, image: string) => {
    const live = (await swarm.listTasks(id)).filter((t) => t.desiredState === "running" || t.state === "running");
    return live.length === REPLICAS && live.every((t) => t.ready && t.image.startsWith(image)) ? true : undefined;
  };

  const serviceId = await swarm.createService(spec(images[0]));
  if (!serviceId) throw new Error("bench service name taken");
  await waitFor("the bench service", () => converged(serviceId, images[0]), { timeoutMs: 120_000, intervalMs: 100 });

  // The load, through every swarm deploy.
  const node1 = dockerRuntime({ dockerHost: h.manager.dockerHost });
  const loop = "while true; do /bin/busybox timeout 2 /bin/busybox wget -q -O- http://web:8080/ || echo fail; /bin/busybox usleep 20000; done";
  const load = await node1.createContainer({
    name: `${short}-bench-load-${run}`,
    Image: images[0],
    Cmd: ["/bin/sh", "-c", loop],
    Labels: { [Labels.managed]: "true", [Labels.instance]: short, [Labels.role]: "bench-load" },
    HostConfig: { NetworkMode: net },
  });
  if (!load) throw new Error("bench load container exists");
  await node1.startContainer(load);

  /** Every new task running (the old may still be going: the engine waits 2 s for gossip, then the stop grace). */
  const newRunning = async (id: string, image: string) =>
    (await swarm.listTasks(id)).filter((t) => t.ready && t.image.startsWith(image)).length === REPLICAS ? true : undefined;

  const swarmMs: number[] = [];
  const swarmServingMs: number[] = [];
  const baselineMs: number[] = [];
  let old: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const image = images[(i + 1) % 2]!;
    const svc = await swarm.inspectService(serviceId);
    if (!svc) throw new Error("bench service gone");
    let t0 = performance.now();
    await swarm.updateService(serviceId, svc.version, spec(image));
    await waitFor("the new replicas", () => newRunning(serviceId, image), { timeoutMs: 120_000, intervalMs: 50 });
    swarmServingMs.push(performance.now() - t0);
    await waitFor("the swarm deploy", () => converged(serviceId, image), { timeoutMs: 120_000, intervalMs: 50 });
    swarmMs.push(performance.now() - t0);

    t0 = performance.now();
    const made: string[] = [];
    for (let r = 0; r < REPLICAS; r++) {
      const id = await node1.createContainer({ name: `${short}-bench-base-${run}-${i}-${r}`, Image: image, Labels: { [Labels.managed]: "true", [Labels.instance]: short, [Labels.role]: "bench-baseline" }, HostConfig: { NetworkMode: net } });
      if (!id) throw new Error("baseline name taken");
      await node1.startContainer(id);
      made.push(id);
    }
    for (const id of old) await node1.removeContainer(id);
    baselineMs.push(performance.now() - t0);
    old = made;
  }
  for (const id of old) await node1.removeContainer(id);
  await node1.stopContainer(load, 1);
  const lines = (await node1.containerLogs(load, 1_000_000)).split("\n").map((l) => l.trim()).filter(Boolean);
  const failed = lines.filter((l) => l !== "v1" && l !== "v2").length;

  // A lost node.
  const tasks = (await swarm.listTasks(serviceId)).filter((t) => t.ready);
  const nodes = await swarm.listNodes();
  const victimId = tasks.map((t) => t.nodeId).find((id) => nodes.find((n) => n.id === id)?.role === "worker");
  const victim = h.nodes.find((n) => n.address === nodes.find((x) => x.id === victimId)?.address);
  let recovery = "no worker held a task";
  if (victim) {
    const t0 = performance.now();
    await h.partition(victim.index);
    await waitFor("the node down", async () => ((await swarm.listNodes()).find((n) => n.id === victimId)?.state === "down" ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
    const down = performance.now() - t0;
    await waitFor("the replicas elsewhere", async () => {
      const live = (await swarm.listTasks(serviceId)).filter((t) => t.ready && t.desiredState === "running" && t.nodeId !== victimId);
      return live.length === REPLICAS ? true : undefined;
    }, { timeoutMs: 120_000, intervalMs: 100 });
    recovery = `${(performance.now() - t0).toFixed(0)} ms (node seen down after ${down.toFixed(0)} ms; heartbeat 1 s)`;
    await h.heal(victim.index);
  }

  console.log(`swarm deploy (update ${REPLICAS} replicas, start-first → new running, old gone): ${fmt(swarmMs)}`);
  console.log(`baseline deploy (one engine: create + start ${REPLICAS}, remove the old ${REPLICAS}): ${fmt(baselineMs)}`);
  console.log(`swarm deploy latency ratio: ${(median(swarmMs) / median(baselineMs)).toFixed(2)}`);
  console.log(`swarm deploy to new replicas running: ${fmt(swarmServingMs)}; ratio ${(median(swarmServingMs) / median(baselineMs)).toFixed(2)}`);
  console.log("  (the rest of a swarm deploy is the engine's own: 2 s for gossip to converge before it stops an old task, then its stop grace)");
  console.log(`swarm cutover failures: ${failed} of ${lines.length} requests over ${ROUNDS} deploys`);
  console.log(`node loss recovery: ${recovery}`);
} finally {
  await h.stop();
}
