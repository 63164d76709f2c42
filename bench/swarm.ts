/**
 * The product's releases on a Docker Swarm, on engines this benchmark starts itself
 * (@levelrail/testkit/swarm: three dockerd in network namespaces, a registry on their bridge; as root).
 *
 * product deploy:  the release controller (apps/worker swarm-release) from a new release to its old
 *                  release's service gone: a swarm service of 2 replicas created beside the old, every
 *                  task running and answering a probe sent from inside the app's overlay, the switch
 *                  (the data plane's state file written), every other node's edge has applied it
 *                  (the node agents' acknowledgements), the old removed (drain 0: the drain is a
 *                  policy delay, not work).
 * engine API:      the same work by hand on the same swarm: create the new service, wait until both
 *                  tasks run, remove the old.
 * cutover failures: a loop of GETs of the app's domain from the host (outside the swarm) through
 *                  every node's published port in turn: the manager's edge ingress (a holder container
 *                  owning a network namespace joined to the app's overlay, Caddy and the product's mesh
 *                  DNS in it, the product's ingress config) and each other node's copy of it (the node
 *                  agents), through every product deploy; tasks probed from the manager's namespace.
 * node loss recovery: a worker holding a task is cut off (its veth down) while the controller passes
 *                  every 250 ms → every request (to the surviving nodes' ports) answered again (its
 *                  tasks run again on the others; 1 s heartbeat).
 *
 * `npm run bench -- swarm` (not part of a plain `npm run bench`); BENCH_ROUNDS (default 6).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE } from "@levelrail/spec/dataplane";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SwarmPort, dockerSwarm } from "@levelrail/docker/swarm";
import {
  type SwarmReleaseDeps,
  type SwarmReleaseInput,
  StatePublisher,
  passUntilIdle,
  reconcileSwarmRelease,
  startTestEdge,
  testReleaseDeps,
  TestReleases,
} from "@levelrail/worker/swarm-release";
import { startSwarm } from "@levelrail/testkit/swarm";
import { waitFor } from "@levelrail/testkit/wait";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const REPLICAS = 2;
const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
const appId = `bench${run}`;
const serviceId = `svc-${run}`;
const DOMAIN = `bench-${run}.test`;
const pool = { pool: "10.235.0.0/16", bits: 26 };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)}, n=${xs.length})`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const h = await startSwarm({ shortName: short, nodes: 3, heartbeatSeconds: 1 });
const stateDir = mkdtempSync(join(tmpdir(), "lr-bench-swarm-"));
try {
  const swarm: SwarmPort = dockerSwarm({ dockerHost: h.manager.dockerHost });
  const images = [
    await h.pushTestImage({ tag: `${short}-bench/web:v1`, body: "v1\n", healthy: true }),
    await h.pushTestImage({ tag: `${short}-bench/web:v2`, body: "v2\n", healthy: true }),
  ] as const;
  const dataDir = join(stateDir, "data");
  const publisher = new StatePublisher(join(dataDir, DATAPLANE_DIR, DATAPLANE_STATE_FILE));
  await publisher.setDomains({ [DOMAIN]: serviceId });
  // As `npm start` with LEVELRAIL_SWARM_REGISTRY: every other node runs its own edge (node agents).
  const edge = await startTestEdge(h, { shortName: short, dataDir, httpPort: 18080, meshPort: 15353, nodeAgents: true });
  const rels = new TestReleases({ shortName: short, serviceId, appId, appName: "bench", registryAuth: h.registryAuth, replicas: REPLICAS });
  const releases = rels.releases;
  // As the worker wires it (drain 0: the drain is a policy delay, not work): old tasks go once every node's edge has the switch.
  const deps: SwarmReleaseDeps = testReleaseDeps(h, { shortName: short, pool, dataDir, status: rels, active: publisher, drainMs: 0 });
  const input = (releaseId: string, image: string): SwarmReleaseInput => rels.input(releaseId, image, { environmentId: "bench", readyBudgetSeconds: 120 });
  const activeTasks = () => publisher.current().services[serviceId]?.tasks ?? [];

  // The first release, then its domain answering through every node's Caddy.
  await passUntilIdle(deps, () => input("r0", images[0]));
  for (const node of h.nodes) {
    await waitFor(`the domain to answer through node ${node.index}'s Caddy`, async () => ((await edge.getOn(node, DOMAIN).catch(() => null))?.status === 200 ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
  }
  let stop = false;
  let sent = 0;
  /** The nodes whose published port the load goes to, in turn (a lost node leaves it). */
  const targets = [...h.nodes];
  const failures: { at: number; what: string }[] = [];
  const load = (async () => {
    while (!stop) {
      const node = targets[sent % targets.length]!;
      sent++;
      const res = await edge.getOn(node, DOMAIN, 5_000).catch((err: unknown) => ({ status: 0, body: err instanceof Error ? err.message : String(err) }));
      if (res.status !== 200 || !/^v[12]\n$/.test(res.body)) failures.push({ at: performance.now(), what: `node ${node.index}: ${res.status} ${res.body.slice(0, 100)}` });
    }
  })();

  const productMs: number[] = [];
  const engineMs: number[] = [];
  let current = input("r0", images[0]).release!.spec.name;
  for (let i = 1; i <= ROUNDS; i++) {
    const image = images[i % 2]!;
    let t0 = performance.now();
    await passUntilIdle(deps, () => input(`r${i}`, image));
    productMs.push(performance.now() - t0);
    const made = input(`r${i}`, image).release!.spec.name;
    if (releases.get(`r${i}`)?.outcome !== "succeeded") throw new Error(`release r${i}: ${JSON.stringify(rels.status)}`);

    // The same work through the engine's API, on the same swarm (a service apart from the product's).
    const spec = { ...input(`e${i}`, image).release!.spec, name: `${short}-engine-${run}-${i}`, labels: { "levelrail.instance": short, bench: run }, containerLabels: {} };
    t0 = performance.now();
    const id = await swarm.createService(spec);
    if (!id) throw new Error("engine bench service name taken");
    await waitFor("the engine API's replicas", async () => ((await swarm.listTasks(id)).filter((t) => t.ready && t.desiredState === "running").length === REPLICAS ? true : undefined), { timeoutMs: 120_000, intervalMs: 50 });
    const before = await swarm.inspectService(`${short}-engine-${run}-${i - 1}`);
    if (before) await swarm.removeService(before.id);
    engineMs.push(performance.now() - t0);
    current = made;
  }
  const cutoverSent = sent;
  const cutoverFailed = failures.length;

  // A lost node, the controller passing every 250 ms as the worker's resync would.
  const svc = await swarm.inspectService(current);
  const nodes = await swarm.listNodes();
  const held = svc ? (await swarm.listTasks(svc.id)).filter((t) => t.ready && t.desiredState === "running").map((t) => t.nodeId) : [];
  const victimId = held.find((id) => nodes.find((n) => n.id === id)?.role === "worker");
  const victim = h.nodes.find((n) => n.address === nodes.find((x) => x.id === victimId)?.address);
  let recovery = "no worker held a task";
  if (victim) {
    let passing = true;
    const passes = (async () => {
      while (passing) {
        await reconcileSwarmRelease(deps, input(`r${ROUNDS}`, images[ROUNDS % 2]!)).catch(() => undefined);
        await sleep(250);
      }
    })();
    // Its own Caddy goes with it: the load keeps to the other nodes' published ports.
    targets.splice(targets.indexOf(victim), 1);
    const t0 = performance.now();
    await h.partition(victim.index);
    // Recovered: every active task on a surviving node, and the last 20 requests answered.
    await waitFor("every request answered again", async () => {
      const onVictim = activeTasks().length === 0 || (svc && (await swarm.listTasks(svc.id)).some((t) => activeTasks().some((a) => a.name === t.id) && t.nodeId === victimId));
      const since = failures.filter((f) => f.at > performance.now() - 1_000).length;
      return !onVictim && since === 0 && sent > cutoverSent + 20 ? true : undefined;
    }, { timeoutMs: 120_000, intervalMs: 100 });
    const lastFailure = failures.filter((f) => f.at > t0).at(-1)?.at ?? t0;
    recovery = `${(performance.now() - t0).toFixed(0)} ms until every active task is on a surviving node (last failed request ${(lastFailure - t0).toFixed(0)} ms after the cut; heartbeat 1 s)`;
    passing = false;
    await passes;
    await h.heal(victim.index);
  }
  stop = true;
  await load;
  edge.close();

  console.log(`product deploy (release controller: ${REPLICAS} replicas created beside the old, probed, switched, old removed): ${fmt(productMs)}`);
  console.log(`engine API (create the service, wait for ${REPLICAS} tasks running, remove the old): ${fmt(engineMs)}`);
  console.log(`swarm deploy latency ratio: ${(median(productMs) / median(engineMs)).toFixed(2)}`);
  console.log(`swarm cutover failures: ${cutoverFailed} of ${cutoverSent} (requests from outside the swarm through every node's Caddy in turn, ${h.nodes.length} nodes, over ${ROUNDS} deploys)`);
  console.log(`node loss recovery: ${recovery}`);
} finally {
  await h.stop();
  rmSync(stateDir, { recursive: true, force: true });
}
