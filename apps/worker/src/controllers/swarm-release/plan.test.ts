import type { SwarmServiceInfo, SwarmTask } from "@levelrail/docker/swarm";
import { DEFAULT_RESOURCES, ROLE_CAPABILITIES } from "@levelrail/spec/service";
import { describe, expect, it } from "vitest";
import { SECRET_ENV_PATH, type SwarmServiceSource, placementConstraints, releaseSecretName, releaseServiceName, releaseServiceSpec, secretEnvFile, swarmInput, withMeshDns, withSecretEnv } from "./desired";
import { nodeLabels } from "./reconcile";
import { type DesiredSwarmRelease, FAILED_TASKS_LIMIT, type ObservedReleaseService, type SwarmDesired, type SwarmObserved, plan, staleSecrets } from "./plan";

const NOW = 1_000_000;
const NET = "net-app";

const release = (over: Partial<DesiredSwarmRelease> = {}, replicas = 2): DesiredSwarmRelease => {
  const spec = releaseServiceSpec(
    "lr",
    { serviceId: "svc1", service: "web", appId: "app1", environmentId: "env1", releaseId: over.id ?? "rel2", restartNonce: "", image: "reg/web:v2", port: 8080, healthPath: "/", replicas, placement: {}, env: { A: "1" }, readyBudgetSeconds: 60 },
    null,
  );
  return { id: "rel2", outcome: "deploying", finishedAt: null, spec, image: "reg/web:v2", readyBudgetMs: 60_000, secretEnv: {}, ...over };
};

const info = (name: string, over: Partial<SwarmServiceInfo> = {}): SwarmServiceInfo => ({
  id: `id-${name}`, name, version: 1, labels: {}, image: "img", replicas: 2, constraints: [], secrets: [], networks: [NET], updateState: null, createdAt: NOW - 5_000, ...over,
});

let seq = 0;
const task = (over: Partial<SwarmTask> = {}): SwarmTask => ({
  id: `t${++seq}`, serviceId: "x", nodeId: "n1", slot: 1, image: "img", desiredState: "running", state: "running", ready: true,
  message: "started", error: "", containerId: "c", exitCode: null, addresses: { [NET]: `10.0.0.${seq}` }, updatedAt: NOW - 1_000, ...over,
});

const svc = (name: string, tasks: SwarmTask[], over: Partial<SwarmServiceInfo> = {}): ObservedReleaseService => ({ info: info(name, over), tasks });
const desired = (r: DesiredSwarmRelease | null, over: Partial<SwarmDesired> = {}): SwarmDesired => ({ service: { id: "svc1" }, release: r, drainMs: 2_000, ...over });
const observed = (services: ObservedReleaseService[], over: Partial<SwarmObserved> = {}): SwarmObserved => ({ now: NOW, services, probes: {}, nodeNames: { n1: "node1", n2: "node2" }, ...over });

describe("the swarm release's service", () => {
  it("is named per release and restart, carries the product's labels, placement as constraints, no alias, dnsrr", () => {
    const r = release();
    expect(r.spec.name).toBe(releaseServiceName("lr", { service: "web", serviceId: "svc1", releaseId: "rel2", restartNonce: "" }));
    expect(releaseServiceName("lr", { service: "web", serviceId: "svc1", releaseId: "rel2", restartNonce: "n1" })).not.toBe(r.spec.name);
    expect(releaseServiceName("lr", { service: "web", serviceId: "svc1", releaseId: "rel3", restartNonce: "" })).not.toBe(r.spec.name);
    expect(r.spec.name).toMatch(/^lr-web-[0-9a-f]{12}$/);
    expect(r.spec.labels).toMatchObject({ "levelrail.instance": "lr", "levelrail.service": "svc1", "levelrail.release": "rel2", "levelrail.role": "service" });
    expect(r.spec.networks).toEqual([{ target: "lr-app-app1", aliases: [] }]);
    expect(r.spec).toMatchObject({ replicas: 2, endpointMode: "dnsrr", env: { A: "1" }, secrets: [] });
    expect(placementConstraints({ zone: "b", disk: "ssd" })).toEqual(["node.labels.disk==ssd", "node.labels.zone==b"]);
  });

  it("limits each task as the service's container on one engine: memory, CPUs, pids, every capability dropped but the service's own", () => {
    const base = { serviceId: "svc1", service: "web", appId: "app1", environmentId: "env1", releaseId: "rel2", restartNonce: "", image: "reg/web:v2", port: 8080, healthPath: "/", replicas: 1, placement: {}, env: {}, readyBudgetSeconds: 60 };
    const unlimited = releaseServiceSpec("lr", base, null);
    expect(unlimited.limits).toEqual({ memoryBytes: null, nanoCpus: null, pids: DEFAULT_RESOURCES.pids });
    expect(unlimited.capabilities).toEqual({ drop: ["ALL"], add: [...ROLE_CAPABILITIES.service].sort() });
    const limited = releaseServiceSpec("lr", { ...base, resources: { memoryMb: 256, cpus: 0.5, pids: 128, capAdd: ["NET_RAW"] } }, null);
    expect(limited.limits).toEqual({ memoryBytes: 256 * 1024 * 1024, nanoCpus: 500_000_000, pids: 128 });
    expect(limited.capabilities?.add).toContain("NET_RAW");
  });
});

it("mesh names on a swarm: the tasks ask the mesh DNS on the app's overlay first, a bare name completed in the app's zone", () => {
  expect(withMeshDns(release().spec, "lr", "shop", ["10.232.0.5", "192.0.2.53"]).dns).toEqual({ nameservers: ["10.232.0.5", "192.0.2.53"], search: ["shop.lr.internal"], options: ["ndots:1"] });
});

describe("a release's secrets on a swarm", () => {
  it("are one file of shell exports, every value single-quoted (nothing in it is expanded)", () => {
    const text = secretEnvFile({ TOKEN: "a'b $HOME `x` \\n", MULTI: "line1\nline2", EMPTY: "" });
    expect(text).toBe("export EMPTY=''\nexport MULTI='line1\nline2'\nexport TOKEN='a'\\''b $HOME `x` \\n'\n");
    expect(() => secretEnvFile({ "A;rm": "x" })).toThrow(/not an environment key/);
  });

  it("are mounted as a file the image's user can read, the loader in front of the image's own entrypoint and command", () => {
    const spec = release().spec;
    const loaded = withSecretEnv(spec, { id: "sec1", name: "lr-web-abc-env" }, { entrypoint: ["/app/run"], cmd: ["--port", "8080"] });
    expect(loaded.secrets).toEqual([{ secretId: "sec1", secretName: "lr-web-abc-env", file: "levelrail-env", mode: 0o444 }]);
    expect(loaded.entrypoint).toEqual(["/bin/sh", "-c", `. ${SECRET_ENV_PATH} && exec "$@"`, "levelrail-env"]);
    expect(loaded.command).toEqual(["/app/run", "--port", "8080"]);
    expect(loaded.env).toEqual(spec.env);
    expect(releaseSecretName("lr-web-0123456789ab")).toBe("lr-web-0123456789ab-env");
    expect(releaseSecretName(`lr-${"x".repeat(60)}`)).toHaveLength(64);
  });
});

describe("plan on a swarm", () => {
  it("removes everything of a deleted service, and of one with no release (stopped)", () => {
    const services = [svc("a", [task()]), svc("b", [])];
    expect(plan(desired(null, { service: null }), observed(services))).toEqual({ kind: "remove-all", remove: ["id-a", "id-b"] });
    expect(plan(desired(null), observed(services))).toMatchObject({ kind: "stopped", remove: ["id-a", "id-b"], status: { phase: "stopped" } });
  });

  it("creates the release's service beside the serving one, which stays named as active", () => {
    const old = svc("lr-web-old", [task()]);
    const step = plan(desired(release()), observed([old]));
    expect(step).toMatchObject({ kind: "create", status: { phase: "deploying", step: "starting", activeContainer: "lr-web-old" } });
  });

  it("waits until every replica runs, naming why one does not", () => {
    const r = release();
    const step = plan(desired(r), observed([svc(r.spec.name, [task(), task({ state: "pending", nodeId: null, message: "no suitable node (scheduling constraints not satisfied on 2 nodes)" })])]));
    expect(step).toMatchObject({ kind: "wait", status: { step: "starting", message: "1 of 2 tasks running (no suitable node (scheduling constraints not satisfied on 2 nodes))" } });
  });

  it("switches only when every task runs and answered its probe", () => {
    const r = release();
    const t1 = task({ nodeId: "n1" });
    const t2 = task({ nodeId: "n2" });
    const mine = svc(r.spec.name, [t1, t2]);
    const half = plan(desired(r), observed([mine], { probes: { [t1.id]: { ready: true, detail: "HTTP 200" }, [t2.id]: { ready: false, detail: "ECONNREFUSED" } } }));
    expect(half).toMatchObject({ kind: "wait", status: { step: "probing", message: "1 of 2 tasks ready" } });
    const all = plan(desired(r), observed([mine], { probes: { [t1.id]: { ready: true, detail: "HTTP 200" }, [t2.id]: { ready: true, detail: "HTTP 200" } } }));
    expect(all).toMatchObject({ kind: "switch", service: r.spec.name, status: { phase: "running", activeContainer: r.spec.name, message: "2 tasks on node1, node2" } });
    if (all.kind !== "switch") throw new Error("no switch");
    expect(all.tasks.map((t) => [t.nodeId, t.address])).toEqual([["n1", t1.addresses[NET]], ["n2", t2.addresses[NET]]]);
    // Where each copy that serves runs: before the switch the old release's tasks, after it the new one's.
    expect(half.kind === "wait" && half.status.replicas).toEqual([]);
    expect(all.status.replicas).toEqual([
      { name: t1.id, node: "node1", address: t1.addresses[NET] },
      { name: t2.id, node: "node2", address: t2.addresses[NET] },
    ]);
    const old = task({ nodeId: "n2" });
    const whileProving = plan(desired(r), observed([svc("lr-web-old", [old]), mine], { probes: { [t1.id]: { ready: true, detail: "HTTP 200" } } }));
    expect(whileProving).toMatchObject({ kind: "wait", status: { activeContainer: "lr-web-old", replicas: [{ name: old.id, node: "node2", address: old.addresses[NET] }] } });
  });

  it("a task shut down by the engine (a rollout, a drain) is not counted as serving", () => {
    const r = release({}, 1);
    const step = plan(desired(r), observed([svc(r.spec.name, [task({ desiredState: "shutdown", state: "running" })])]));
    expect(step).toMatchObject({ kind: "wait", status: { message: "0 of 1 tasks running" } });
  });

  it("fails after repeated task failures, naming the node's error; the old service keeps serving", () => {
    const r = release();
    const failures = Array.from({ length: FAILED_TASKS_LIMIT }, (_, i) =>
      task({ desiredState: "shutdown", state: "rejected", error: "No such image: reg/web:v2", nodeId: "n2", updatedAt: NOW - 100 + i }),
    );
    const step = plan(desired(r), observed([svc("lr-web-old", [task()]), svc(r.spec.name, failures)]));
    expect(step).toMatchObject({
      kind: "fail",
      remove: [`id-${r.spec.name}`],
      message: `its tasks failed ${FAILED_TASKS_LIMIT} times (last: No such image: reg/web:v2 on node2)`,
      status: { phase: "failed", activeContainer: "lr-web-old" },
    });
    expect(step.kind === "fail" && step.status.message).toContain("lr-web-old keeps serving");
  });

  it("fails when the budget ends before every task is ready", () => {
    const r = release({ readyBudgetMs: 3_000 });
    const t1 = task();
    const step = plan(desired(r), observed([svc(r.spec.name, [t1], { createdAt: NOW - 4_000 })], { probes: { [t1.id]: { ready: false, detail: "HTTP 503" } } }));
    expect(step).toMatchObject({ kind: "fail", message: "the release did not get ready within 3 s (1 of 2 tasks running)" });
  });

  it("a release with secrets is made (they go in a swarm secret, not refused)", () => {
    expect(plan(desired(release({ secretEnv: { TOKEN: "x" } })), observed([]))).toMatchObject({ kind: "create" });
  });

  it("a release's secret goes when its service goes, and stays while its release may still make it", () => {
    const r = release();
    const secrets = [{ id: "s-old", service: "lr-web-old" }, { id: "s-mine", service: r.spec.name }, { id: "s-stray", service: "lr-web-gone" }];
    const services = [svc("lr-web-old", []), svc(r.spec.name, [])];
    // The old service removed: its secret and the stray one go; the deploying release keeps its own (made, its service not yet).
    expect(staleSecrets(secrets, [], [], r)).toEqual(["s-old", "s-stray"]);
    expect(staleSecrets(secrets, services, ["id-lr-web-old"], r)).toEqual(["s-old", "s-stray"]);
    expect(staleSecrets(secrets, services, [], r)).toEqual(["s-stray"]);
    // A failed release's own goes too; a deleted service's all.
    expect(staleSecrets(secrets, services, [`id-${r.spec.name}`], { ...r, outcome: "failed" })).toEqual(["s-mine", "s-stray"]);
    expect(staleSecrets(secrets, services, services.map((x) => x.info.id), null)).toEqual(["s-old", "s-mine", "s-stray"]);
  });

  it("after the switch the old services drain, then go", () => {
    const r = release({ outcome: "succeeded", finishedAt: NOW - 500 });
    const services = [svc("lr-web-old", [task()]), svc(r.spec.name, [task(), task({ nodeId: "n2" })])];
    expect(plan(desired(r), observed(services))).toMatchObject({ kind: "drain", requeueAfterMs: 1_500, service: r.spec.name });
    expect(plan(desired(r), observed(services, { now: NOW + 1_600 }))).toMatchObject({ kind: "done", remove: ["id-lr-web-old"], status: { phase: "running" } });
  });

  it("a lost node's tasks leave the active set at once, though the engine still says they run", () => {
    const r = release({ outcome: "succeeded", finishedAt: NOW - 60_000 });
    const services = [svc(r.spec.name, [task({ nodeId: "n1" }), task({ nodeId: "n2" })])];
    const step = plan(desired(r), observed(services, { lostNodes: ["n2"] }));
    expect(step).toMatchObject({ kind: "done", status: { message: "1 task on node1" } });
    expect(step.kind === "done" && step.tasks.map((t) => t.nodeId)).toEqual(["n1"]);
  });

  it("a switched release whose tasks keep failing is a crash loop in its status (restarts, last exit, where), looked at again until it ends", () => {
    const r = release({ outcome: "succeeded", finishedAt: NOW - 60_000 });
    const crashed = (n: number, at: number) => task({ desiredState: "shutdown", state: "failed", exitCode: 2, error: "task: non-zero exit (2)", nodeId: "n2", updatedAt: at, containerId: `c${n}` });
    const failures = [crashed(1, NOW - 9_000), crashed(2, NOW - 5_000), crashed(3, NOW - 1_000)];
    const step = plan(desired(r), observed([svc(r.spec.name, [task(), task({ nodeId: "n2" }), ...failures])]));
    expect(step).toMatchObject({
      kind: "done",
      requeueAfterMs: 5_000,
      status: { phase: "running", crashLooping: true, restarts: 3, lastExit: { code: 2, at: new Date(NOW - 1_000).toISOString() }, message: "2 tasks on node1, node2; tasks keep crashing (3 restarts, last exit code 2 on node2); the swarm restarts them" },
    });
    // A minute after the last failure the loop is over; the restarts stay counted. Failures before the switch are not the release's.
    const later = plan(desired(r), observed([svc(r.spec.name, [task(), task({ nodeId: "n2" }), ...failures])], { now: NOW + 60_000 }));
    expect(later).toMatchObject({ kind: "done", status: { crashLooping: false, restarts: 3, message: "2 tasks on node1, node2" } });
    expect(later.kind === "done" && later.requeueAfterMs).toBeUndefined();
    const before = plan(desired(release({ outcome: "succeeded", finishedAt: NOW })), observed([svc(r.spec.name, [task(), task({ nodeId: "n2" }), ...failures])]));
    expect(before).toMatchObject({ status: { crashLooping: false, restarts: 0, lastExit: null } });
    // Every task down: still the release's, waiting for the swarm, saying why.
    const down = plan(desired(r), observed([svc(r.spec.name, failures)]));
    expect(down).toMatchObject({ kind: "wait", requeueAfterMs: 5_000, status: { crashLooping: true, message: expect.stringContaining("no task of the release runs: tasks keep crashing") } });
  });

  it("a failed release holds: nothing is written to the swarm", () => {
    const step = plan(desired(release({ outcome: "failed" })), observed([svc("lr-web-old", [task()])]));
    expect(step).toMatchObject({ kind: "hold", remove: [], status: { phase: "failed", activeContainer: "lr-web-old" } });
    // Its own service still there (a removal that did not take): it goes, the old stays.
    const r = release({ outcome: "failed" });
    expect(plan(desired(r), observed([svc("lr-web-old", [task()]), svc(r.spec.name, [])]))).toMatchObject({ kind: "hold", remove: [`id-${r.spec.name}`] });
  });

  it("a switched release whose service was removed by hand is made again (its pre-deploy hook does not run again)", () => {
    const hooks = { preDeploy: ["migrate"], postDeploy: null, timeoutSeconds: 60 };
    const step = plan(desired(release({ outcome: "succeeded", finishedAt: NOW - 60_000, hooks })), observed([]));
    expect(step).toMatchObject({ kind: "create", preDeploy: null, status: { message: "its swarm service was gone; starting it again" } });
  });

  it("hooks: pre-deploy before the release's service is made, post-deploy when every task is ready, before the switch", () => {
    const r = release({ hooks: { preDeploy: ["migrate", "--up"], postDeploy: ["warm"], timeoutSeconds: 60 } });
    expect(plan(desired(r), observed([]))).toMatchObject({ kind: "create", preDeploy: ["migrate", "--up"], status: { step: "pre-deploy" } });
    const [t1, t2] = [task(), task({ nodeId: "n2" })];
    const ready = observed([svc(r.spec.name, [t1, t2])], { probes: { [t1.id]: { ready: true, detail: "" }, [t2.id]: { ready: true, detail: "" } } });
    expect(plan(desired(r), ready)).toMatchObject({ kind: "switch", postDeploy: ["warm"] });
    expect(plan(desired(release()), observed([]))).toMatchObject({ kind: "create", preDeploy: null, status: { step: "starting" } });
  });
});

it("nodes are named by hostname, with their address where hostnames repeat", () => {
  const n = (id: string, hostname: string, address: string) => ({ id, hostname, name: id, address });
  expect(nodeLabels([n("a", "vm", "10.0.0.1"), n("b", "vm", "10.0.0.2"), n("c", "db1", "10.0.0.3")])).toEqual({ a: "vm (10.0.0.1)", b: "vm (10.0.0.2)", c: "db1" });
});

describe("the controller's input from a stored service", () => {
  const stored = (release: SwarmServiceSource["release"]): SwarmServiceSource => ({ id: "svc1", name: "web", appId: "app1", appName: "shop", environmentId: "env1", release });
  const spec = { image: "reg/web@sha256:" + "a".repeat(64), port: 8080, healthPath: "/up", readyBudgetSeconds: 30 };

  it("carries replicas and placement from the release (absent: 1 and none), secrets out of the spec's env", () => {
    const input = swarmInput("lr", "svc1", stored({ id: "rel1", restartNonce: "", outcome: "pending", finishedAt: null, spec: { ...spec, replicas: 3, placement: { zone: "a" } } }), { env: { A: "1", TOKEN: "s3cret" }, secretKeys: ["TOKEN"] }, null);
    expect(input.service).toEqual({ appId: "app1", appName: "shop", name: "web", port: 8080, healthPath: "/up" });
    expect(input.release).toMatchObject({ id: "rel1", image: spec.image, readyBudgetMs: 30_000, secretEnv: { TOKEN: "s3cret" }, spec: { replicas: 3, constraints: ["node.labels.zone==a"], env: { A: "1" } } });
    expect(JSON.stringify(input.release?.spec)).not.toContain("s3cret");
    const defaults = swarmInput("lr", "svc1", stored({ id: "rel1", restartNonce: "", outcome: "pending", finishedAt: null, spec }), { env: {}, secretKeys: [] }, null);
    expect(defaults.release?.spec).toMatchObject({ replicas: 1, constraints: [] });
  });

  it("carries the hooks (none: no field)", () => {
    const withHooks = { ...spec, hooks: { preDeploy: ["migrate"], postDeploy: null, timeoutSeconds: 60 } };
    const input = swarmInput("lr", "svc1", stored({ id: "rel1", restartNonce: "", outcome: "pending", finishedAt: null, spec: withHooks }), { env: {}, secretKeys: [] }, null);
    expect(input.release?.hooks).toEqual({ preDeploy: ["migrate"], postDeploy: null, timeoutSeconds: 60 });
    expect(swarmInput("lr", "svc1", stored({ id: "rel1", restartNonce: "", outcome: "pending", finishedAt: null, spec }), { env: {}, secretKeys: [] }, null).release).not.toHaveProperty("hooks");
  });

  it("a deleted service, and one with no release", () => {
    expect(swarmInput("lr", "svc1", null, { env: {}, secretKeys: [] }, null)).toEqual({ serviceId: "svc1", service: null, release: null });
    expect(swarmInput("lr", "svc1", stored(null), { env: {}, secretKeys: [] }, null).release).toBeNull();
  });
});
