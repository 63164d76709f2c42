import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Runtime, dockerRuntime } from "@levelrail/docker";
import { dockerLogReader } from "@levelrail/docker/logs";
import { type SwarmPort, dockerSwarm } from "@levelrail/docker/swarm";
import type { ActiveEntry } from "@levelrail/spec/dataplane";
import { Labels } from "@levelrail/spec/naming";
import { DEFAULT_RESOURCES, ROLE_CAPABILITIES } from "@levelrail/spec/service";
import { whileLoaded } from "@levelrail/testkit/load";
import { waitFor } from "@levelrail/testkit/wait";
import { ensureNodeImage } from "@levelrail/testkit/node-image";
import { type SwarmClient, type SwarmHarness, startClient, startSwarm } from "@levelrail/testkit/swarm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatePublisher } from "../../dataplane/publisher";
import { ensureAppOverlay } from "../../network/app-overlay";
import { attachDatabase } from "../database/server";
import type { SwarmRelease } from "./desired";
import { overlayProber } from "./probe";
import { passUntilIdle } from "./index";
import { type SwarmReleaseDeps, type SwarmReleaseInput, reconcileSwarmRelease } from "./reconcile";
import { TestReleases } from "./testing";
import { watchSwarmTasks } from "./watch";
import { MemoryRecorder } from "../application/testbed";

// The release controller on a real two-engine swarm (issue 26 items 1 and 2): each release a swarm
// service of its own with its replicas over both nodes and its placement, every task running and
// answering its probe (sent from inside the app's overlay) before the switch, the old release
// serving until the drain ends, and a release whose image no node can pull failed while the old one
// keeps serving. The status writer is the controller's narrow port in memory (its PostgreSQL form
// is the application controller's, tested there). Run by `npm run test:swarm`, as root.

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
const appId = `a${run}`;
const serviceId = `svc-${run}`;
const pool = { pool: "10.234.0.0/16", bits: 26 };
const DRAIN_MS = 3_000;

let h: SwarmHarness;
let swarm: SwarmPort;
let runtime: Runtime;
let images: { v1: string; v2: string; missing: string };
let deps: SwarmReleaseDeps;
const stateDir = mkdtempSync(join(tmpdir(), "lr-swarm-state-"));
const publisher = new StatePublisher(join(stateDir, "state.json"));

/** The releases and statuses the controller wrote (`rels`), and the tasks it made active (what ingress would route to). */
let rels: TestReleases;
const written = { active: null as ActiveEntry["tasks"] | null };
const input = (releaseId: string, image: string, over: Partial<SwarmRelease> = {}) => rels.input(releaseId, image, over);

/** Passes until the controller has nothing pending (as the worker's queue would run them). */
async function converge(make: () => SwarmReleaseInput, timeoutMs = 120_000): Promise<string[]> {
  try {
    return await passUntilIdle(deps, make, timeoutMs);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; status ${JSON.stringify(rels.status)}`);
  }
}

const serviceNames = async () => (await swarm.listServices([`${Labels.service}=${serviceId}`])).map((s) => s.name).sort();
const nodeAddressOf = async (nodeId: string) => (await swarm.listNodes()).find((n) => n.id === nodeId)?.address;

beforeAll(async () => {
  // The registry wants a login: a release without one (another organization's) is refused by it.
  h = await startSwarm({ shortName: short, nodes: 2, heartbeatSeconds: 1, registryLogin: true });
  rels = new TestReleases({ shortName: short, serviceId, appId, appName: "shop", registryAuth: h.registryAuth, env: { GREETING: "hi" } });
  swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  runtime = dockerRuntime({ dockerHost: h.manager.dockerHost });
  images = {
    v1: await h.pushTestImage({ tag: `${short}-test/rel:v1`, body: "v1\n", healthy: true }),
    v2: await h.pushTestImage({ tag: `${short}-test/rel:v2`, body: "v2\n", healthy: true }),
    missing: `${h.registry}/${short}/rel:never-pushed`,
  };
  const probeImage = await ensureNodeImage(h.manager.docker);
  deps = {
    shortName: short,
    swarm,
    images: runtime,
    ensureNetwork: async (id) => void (await ensureAppOverlay(runtime, swarm, short, id, pool)),
    prober: overlayProber(runtime, short, probeImage),
    status: rels,
    // The worker's real state file writer (the data plane follows that file).
    active: {
      async setActive(id, entry) {
        await publisher.setActive(id, entry);
        written.active = publisher.current().services[id]?.tasks ?? null;
      },
    },
    drainMs: DRAIN_MS,
  };
}, 240_000);

afterAll(async () => {
  await h?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("releases on a swarm", () => {
  let client: SwarmClient;

  it("a release runs as a swarm service with its replicas on both nodes, switched once every task answered its probe", async () => {
    const steps = await converge(() => input("rel1", images.v1, { resources: { ...DEFAULT_RESOURCES, memoryMb: 64 } }));
    expect(steps[0]).toBe("create");
    expect(steps).toContain("switch");
    expect(steps.at(-1)).toBe("done");
    expect(rels.releases.get("rel1")).toMatchObject({ outcome: "succeeded" });
    expect(rels.status).toMatchObject({ phase: "running", message: expect.stringMatching(/^2 tasks on /) });
    expect(written.active).toHaveLength(2);
    // The status names where each replica runs (the nodes share one hostname here: each is named with its address).
    const where = (rels.status?.replicas ?? []).map((r) => r.node).sort();
    expect(where).toHaveLength(2);
    for (const n of h.nodes.slice(0, 2)) expect(where.filter((w) => w.endsWith(`(${n.address})`))).toHaveLength(1);
    const tasks = await Promise.all((written.active ?? []).map(async (t) => (await swarm.listTasks((await swarm.inspectService(input("rel1", images.v1).release!.spec.name))!.id)).find((x) => x.id === t.name)));
    const onNodes = new Set(await Promise.all(tasks.map((t) => nodeAddressOf(t!.nodeId!))));
    expect(onNodes).toEqual(new Set([h.nodes[0]!.address, h.nodes[1]!.address]));
    // Each task limited as the service's container on one engine (rel1 asks 64 MiB).
    const managerId = (await swarm.swarmInfo()).nodeId;
    const onManager = tasks.find((t) => t?.nodeId === managerId);
    const hc = (await h.manager.docker.getContainer(onManager!.containerId!).inspect()).HostConfig;
    expect(hc).toMatchObject({ Memory: 64 * 1024 * 1024, PidsLimit: DEFAULT_RESOURCES.pids, CapDrop: ["ALL"] });
    expect(hc.CapAdd).toEqual(expect.arrayContaining([...ROLE_CAPABILITIES.service]));
    // Pinned to the registry's digest at the create: every node runs the same bits, whatever the tag points at later.
    const made = await swarm.inspectService(input("rel1", images.v1).release!.spec.name);
    expect(made?.image.slice(0, images.v1.length + 8)).toBe(`${images.v1}@sha256:`);
    expect(made?.image).toMatch(/@sha256:[0-9a-f]{64}$/);
    expect(await swarm.resolveImage(images.v1, h.registryAuth)).toBe(made?.image);
    expect(await swarm.resolveImage(images.missing, h.registryAuth)).toBeNull();

    // The tasks serve on the app's overlay, from a container on the other node.
    // (By the pinned reference: the node pulled the image by digest, so it has no tag of it.)
    client = await startClient(h.nodes[1]!, { network: `${short}-app-${appId}`, image: made!.image, shortName: short });
    for (const t of written.active ?? []) expect(await client.get(`http://${t.address}:8080/`)).toMatchObject({ exitCode: 0, out: "v1\n" });
  }, 180_000);

  it("blue-green across nodes: the old release serves until the new one's every task is ready; nothing fails through the active tasks", async () => {
    // What ingress does: each request to one of the tasks the data plane was last told are active.
    let n = 0;
    const { result: steps, sent, failures, bodies } = await whileLoaded(
      async () => {
        const tasks = written.active ?? [];
        const t = tasks[n++ % Math.max(tasks.length, 1)];
        if (!t) return null;
        const res = await client.get(`http://${t.address}:8080/`, 3);
        return res.exitCode === 0 ? { ok: true, body: res.out } : { ok: false, detail: `${t.address}: exit ${res.exitCode} ${res.out}` };
      },
      () => converge(() => input("rel2", images.v2)),
    );
    expect(steps).toEqual(expect.arrayContaining(["create", "switch", "drain", "done"]));
    console.log(`swarm cutover through the active tasks: ${failures.length} failed of ${sent}`);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(5);
    expect(bodies).toEqual(new Set(["v1\n", "v2\n"]));
    expect(rels.releases.get("rel2")).toMatchObject({ outcome: "succeeded" });
    expect(await serviceNames()).toEqual([input("rel2", images.v2).release!.spec.name]);
  }, 180_000);

  it("placement: with node 2 labelled zone=b, a release placed in zone b runs both replicas there", async () => {
    const node2 = (await swarm.listNodes()).find((n) => n.address === h.nodes[1]!.address)!;
    await swarm.updateNode(node2.id, { labels: { ...node2.labels, zone: "b" } });
    await converge(() => input("rel3", images.v2, { placement: { zone: "b" } }));
    expect(rels.releases.get("rel3")).toMatchObject({ outcome: "succeeded" });
    const [svc] = await swarm.listServices([`${Labels.release}=rel3`]);
    const rel3Tasks = (await swarm.listTasks(svc!.id)).filter((t) => written.active?.some((a) => a.name === t.id));
    expect(rel3Tasks.map((t) => t.nodeId)).toEqual([node2.id, node2.id]);
    expect(svc?.constraints).toEqual(["node.labels.zone==b"]);
  }, 180_000);

  it("a release whose image no registry confirms fails naming the engine's error, before any service is made; the serving release keeps serving", async () => {
    const serving = await serviceNames();
    const steps = await converge(() => input("rel4", images.missing, { replicas: 1 }));
    expect(steps).toEqual(["fail", "hold"]);
    expect(rels.releases.get("rel4")).toMatchObject({ outcome: "failed", message: expect.stringMatching(new RegExp(`^image ${images.missing} could not be pulled: `)) });
    expect(rels.status).toMatchObject({ phase: "failed", activeContainer: serving[0] });
    console.log(`a release that cannot pull: ${rels.releases.get("rel4")?.message}`);
    expect(await serviceNames()).toEqual(serving);
    for (const t of written.active ?? []) expect(await client.get(`http://${t.address}:8080/`)).toMatchObject({ exitCode: 0, out: "v2\n" });
  }, 180_000);

  it("another organization's release of the same private image, without a login the registry accepts, fails as on one engine; no service runs it unpinned", async () => {
    // Every node (the manager too) holds v1, pulled with the first organization's login by the releases above.
    const otherId = `svc-b-${run}`;
    const theirs = new TestReleases({ shortName: short, serviceId: otherId, appId, appName: "shop", registryAuth: null });
    const steps = await passUntilIdle({ ...deps, status: theirs }, () => theirs.input("relB", images.v1, { replicas: 2 }), 60_000);
    expect(steps).toEqual(["fail", "hold"]);
    expect(theirs.releases.get("relB")).toMatchObject({
      outcome: "failed",
      message: expect.stringContaining(`image ${images.v1} is on this host, but its registry did not confirm this service may pull it without a registry credential`),
    });
    expect(await swarm.listServices([`${Labels.service}=${otherId}`])).toEqual([]);
  }, 120_000);

  it("a release's secrets reach its tasks' environment through a swarm secret; neither the service nor its task containers show them", async () => {
    const marker = `tok${run}`;
    const TOKEN = `${marker} it's "quoted" $HOME \`x\`\nsecond line`;
    const cgi = '#!/bin/sh\necho "Content-Type: text/plain"\necho\necho "$TOKEN"\n';
    const image = await h.pushTestImage({ tag: `${short}-test/rel:env`, body: "env\n", healthy: true, files: { "/www/cgi-bin/token": { content: cgi, mode: 0o755 } } });
    await converge(() => rels.input("rel5", image, {}, { secretEnv: { TOKEN } }));
    expect(rels.releases.get("rel5")).toMatchObject({ outcome: "succeeded" });
    // The app sees it exactly, on both nodes (a value with quotes, a `$`, backquotes and a newline).
    expect(written.active).toHaveLength(2);
    for (const t of written.active ?? []) expect(await client.get(`http://${t.address}:8080/cgi-bin/token`)).toMatchObject({ exitCode: 0, out: `${TOKEN}\n` });
    // `docker service inspect` names the secret only; the task containers' own inspect has no value either.
    const [svc] = await swarm.listServices([`${Labels.release}=rel5`]);
    const raw = JSON.stringify(await h.manager.docker.getService(svc!.id).inspect());
    expect(raw).not.toContain(marker);
    expect(svc?.secrets.map((x) => x.file)).toEqual(["levelrail-env"]);
    const tasks = await swarm.listTasks(svc!.id);
    const managerId = (await swarm.swarmInfo()).nodeId;
    const local = tasks.find((t) => t.nodeId === managerId && t.containerId);
    expect(JSON.stringify(await h.manager.docker.getContainer(local!.containerId!).inspect())).not.toContain(marker);
    // The older release's secretless service went; this one's secret is the only one left.
    expect((await swarm.listSecrets([`${Labels.service}=${serviceId}`])).map((x) => x.name)).toEqual([`${svc!.name}-env`]);
  }, 180_000);

  it("hooks run as swarm jobs of the release's image, env and secrets: a failing pre-deploy hook fails the release before its service is made; passing ones gate the switch", async () => {
    const runs = new MemoryRecorder();
    deps.hooks = runs;
    const serving = await serviceNames();
    const failing = { preDeploy: ["/bin/sh", "-c", "echo checking; exit 7"], postDeploy: null, timeoutSeconds: 60 };
    await converge(() => rels.input("rel6", images.v1, {}, { hooks: failing }));
    expect(rels.releases.get("rel6")).toMatchObject({ outcome: "failed", message: 'pre-deploy hook ["/bin/sh","-c","echo checking; exit 7"] failed with exit code 7' });
    expect(runs.runs[0]).toMatchObject({ phase: "pre", outcome: "failed", output: "checking\n" });
    expect(await serviceNames()).toEqual(serving);

    const hooks = { preDeploy: ["/bin/sh", "-c", 'echo "pre $GREETING ${#TOKEN}"'], postDeploy: ["/bin/sh", "-c", "echo post"], timeoutSeconds: 60 };
    const steps = await converge(() => rels.input("rel7", images.v1, {}, { secretEnv: { TOKEN: "tok-xyz" }, hooks }));
    expect(steps).toEqual(expect.arrayContaining(["create", "switch"]));
    expect(rels.releases.get("rel7")).toMatchObject({ outcome: "succeeded" });
    // The release's env and secrets reach the job (the secret's length printed, not the secret).
    expect(runs.runs.slice(1).map((r) => [r.phase, r.outcome, r.output])).toEqual([
      ["pre", "succeeded", "pre hi 7\n"],
      ["post", "succeeded", "post\n"],
    ]);
    // The jobs went once they ended: only the release's service is left.
    expect(await serviceNames()).toEqual([rels.input("rel7", images.v1).release!.spec.name]);
    delete deps.hooks;
  }, 180_000);

  it("logs: the reader lists a swarm service (not its task containers) and reads every task's lines from both nodes in time order, following too", async () => {
    const logId = `logs-${run}`;
    const labels = { [Labels.managed]: "true", [Labels.instance]: short, [Labels.service]: logId, [Labels.role]: "service" };
    const name = `${short}-logs-${run}`;
    const script = 'i=0; while :; do echo "$HOSTNAME $i"; i=$((i+1)); /bin/busybox sleep 0.1; done';
    const id = await swarm.createService({
      name, image: images.v1, replicas: 2, labels, containerLabels: labels, env: {}, entrypoint: ["/bin/sh", "-c", script], networks: [], constraints: [],
      spreadOver: ["node.id"], secrets: [], updateOrder: "start-first", endpointMode: "dnsrr", stopGraceSeconds: 1, registryAuth: h.registryAuth,
    });
    const reader = dockerLogReader({ dockerHost: h.manager.dockerHost });
    const filter = [`${Labels.instance}=${short}`, `${Labels.service}=${logId}`];
    const deadline = Date.now() + 60_000;
    let listed = await reader.containers(filter);
    while (listed[0]?.status !== "2 of 2 tasks running" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      listed = await reader.containers(filter);
    }
    // One entry, the service, though one of its tasks' containers runs on this very engine.
    expect(listed.map((c) => [c.name, c.state, c.status])).toEqual([[name, "running", "2 of 2 tasks running"]]);
    await new Promise((r) => setTimeout(r, 1_500));
    const read = async (follow: boolean, count: number) => {
      const ac = new AbortController();
      const out: { at: string; line: string }[] = [];
      for await (const l of reader.lines(listed[0]!.id, { follow, ...(follow ? { tail: 0 } : {}), signal: ac.signal })) {
        out.push(l);
        if (out.length >= count) ac.abort();
      }
      return out;
    };
    for (const lines of [await read(false, Infinity), await read(true, 30)]) {
      const hosts = new Set(lines.map((l) => l.line.split(" ")[0]));
      expect(hosts.size).toBe(2);
      expect(lines.map((l) => l.at)).toEqual(lines.map((l) => l.at).sort());
      // Each task's own lines in their order, none lost in the merge.
      for (const host of hosts) {
        const n = lines.filter((l) => l.line.startsWith(`${host} `)).map((l) => Number(l.line.split(" ")[1]));
        expect(n).toEqual(n.map((_, i) => n[0]! + i));
      }
    }
    await swarm.removeService(id!);
  }, 120_000);

  it("a switched release whose tasks keep exiting shows a crash loop: restarts, the last exit code and its node", async () => {
    // Serves for 6 s, then exits with code 2: ready long enough to switch, then the swarm restarts it.
    const image = await h.pushTestImage({ tag: `${short}-test/rel:crash`, body: "crash\n", healthy: true, cmd: ["/bin/sh", "-c", "/bin/busybox httpd -p 8080 -h /www; /bin/busybox sleep 6; exit 2"] });
    const deadline = Date.now() + 120_000;
    const seen: string[] = [];
    while (!rels.status?.crashLooping) {
      if (Date.now() > deadline) throw new Error(`no crash loop reported: ${seen.join(" → ")}; status ${JSON.stringify(rels.status)}`);
      const { step, requeueAfterMs } = await reconcileSwarmRelease(deps, rels.input("rel8", image));
      if (seen.at(-1) !== step) seen.push(step);
      await new Promise((r) => setTimeout(r, Math.min(requeueAfterMs ?? 1_000, 1_000)));
    }
    expect(seen).toEqual(expect.arrayContaining(["create", "switch"]));
    expect(rels.releases.get("rel8")).toMatchObject({ outcome: "succeeded" });
    expect(rels.status).toMatchObject({ crashLooping: true, lastExit: { code: 2 }, message: expect.stringMatching(/tasks keep crashing \(\d+ restarts, last exit code 2 on .+\); the swarm restarts them/) });
    expect(rels.status?.restarts).toBeGreaterThanOrEqual(3);
    console.log(`a crash-looping release on a swarm: ${rels.status?.message}`);
    // The worker learns of the swarm's task changes by listing its live tasks (no event reaches it from another node).
    const watch = watchSwarmTasks({ swarm, shortName: short, wake: () => {}, log: () => {} });
    await watch.tick();
    await waitFor("the task watcher to see the crashing release's tasks change", async () => ((await watch.tick()).includes(serviceId) ? true : undefined), { timeoutMs: 30_000, intervalMs: 1_000 });
  }, 180_000);

  it("a database attached: its container on the manager's engine joins the app's overlay under its name, and the release's tasks on every node reach it", async () => {
    // A stand-in for a managed database's server (the database controller makes those on the manager's engine, on `none`).
    const dbName = `${short}-db-${run}`;
    const alias = `shopdb${run}`;
    const made = await h.manager.docker.createContainer({ name: dbName, Image: images.v1, Cmd: ["/bin/busybox", "httpd", "-f", "-p", "5432", "-h", "/www"], HostConfig: { NetworkMode: "none" } });
    await made.start();
    deps.attachDatabases = async () => {
      const c = await runtime.inspectContainer(dbName);
      await attachDatabase({ runtime }, c!, `${short}-app-${appId}`, alias);
    };
    try {
      await converge(() => rels.input("rel9", images.v2));
      expect(rels.releases.get("rel9")).toMatchObject({ outcome: "succeeded" });
      // From the other node, on the app's overlay, by the database's name.
      expect(await client.get(`http://${alias}:5432/`)).toMatchObject({ exitCode: 0, out: "v1\n" });
      // And from a task of the release itself, wherever it runs.
      const [svc] = await swarm.listServices([`${Labels.release}=rel9`]);
      const managerId = (await swarm.swarmInfo()).nodeId;
      const local = (await swarm.listTasks(svc!.id)).find((t) => t.nodeId === managerId && t.state === "running");
      const exec = await runtime.exec(local!.containerId!, ["/bin/busybox", "wget", "-q", "-O-", `http://${alias}:5432/`], () => {});
      expect(exec.exitCode).toBe(0);
    } finally {
      delete deps.attachDatabases;
      await made.remove({ force: true });
    }
  }, 180_000);

  it("the service deleted: every swarm service of it goes", async () => {
    await client.remove();
    const steps = await converge(() => ({ serviceId, service: null, release: null }));
    expect(steps).toEqual(["remove-all"]);
    expect(await serviceNames()).toEqual([]);
    expect(written.active).toBeNull();
    expect(await swarm.listSecrets([`${Labels.service}=${serviceId}`])).toEqual([]);
  }, 60_000);
});
