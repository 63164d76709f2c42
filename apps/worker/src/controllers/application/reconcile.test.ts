import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ManagedContainer, NetworkInfo, PullProgress, RegistryAuth, Runtime } from "@levelrail/docker";
import type { EnvStores, EnvTarget } from "@levelrail/spec/env";
import { Labels, containerName, meshName, networkLabels, networkName, serviceFilter, serviceLabels } from "@levelrail/spec/naming";
import type { ReleaseSpec } from "@levelrail/spec/service";
import { containerOptions } from "./desired";
import { type HookOutcome, type HookPhase, type HookRecorder, preDeployContainer } from "./hooks";
import type {
  DeployRecorder,
  DesiredRelease,
  DesiredService,
  ObservedStatus,
  ProbeResult,
  Prober,
  RegistryStore,
  ReleaseUpdate,
  ServiceStore,
  StatusWriter,
} from "./ports";
import { type MeshPort, applicationController } from "./reconcile";

const NOW = new Date("2026-03-01T12:00:00Z").getTime();
const SHORT = "lrt";
const APP_ID = "app-1";
const NETWORK = networkName(SHORT, APP_ID);
const IMAGE_REF = "registry.example.com/shop:1.4.2"; // a fixed tag: pulled only when missing
const IMAGE_ID = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
const OLD_IMAGE_ID = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
const PROBE_INTERVAL_MS = 250;
const DRAIN_MS = 2_000;
/** The app network's subnet and gateway: the first /26 of the pool (the mesh DNS listens on the gateway). */
const POOL = { pool: "10.201.0.0/16", bits: 26 };
const SUBNET = "10.201.0.0/26";
const GATEWAY = "10.201.0.1";
const DNS_NAME = meshName(SHORT, "shop", "web");

type Call = [method: string, args: unknown[]];

/** A Docker engine in memory that records every call as [method, args]. */
class FakeRuntime implements Runtime {
  readonly calls: Call[] = [];
  readonly containers = new Map<string, ManagedContainer>();
  readonly images = new Map<string, string>();
  /** What pulling a ref does: the image id it yields, or the engine's error. */
  pulls = new Map<string, string | Error>();
  readonly networks = new Map<string, NetworkInfo>();
  /** How a started container behaves. */
  onStart: "runs" | "exits" = "runs";
  /** How a pre-deploy hook container (one with a role label) ends when started, and what a post-deploy exec exits with. */
  hookExit = 0;
  execExit = 0;
  private seq = 0;

  constructor(opts: { network?: boolean } = {}) {
    if (opts.network !== false) this.addNetwork();
  }

  /** The app network as an earlier pass made it, without recording a call. */
  addNetwork() {
    this.networks.set(NETWORK, { id: "net-1", name: NETWORK, labels: networkLabels(SHORT, APP_ID), subnets: [SUBNET], gateway: GATEWAY, containers: [] });
  }

  private record(method: string, ...args: unknown[]) {
    this.calls.push([method, args]);
  }

  /** Puts a container of this installation on the engine without recording a call. */
  add(c: Partial<ManagedContainer> & { name: string }): ManagedContainer {
    const full: ManagedContainer = {
      id: `id-${c.name}`,
      state: "running",
      labels: serviceLabels(SHORT, "web", APP_ID, "rel-old"),
      startedAt: NOW - 3_600_000,
      exitCode: null,
      createdAt: NOW - 3_600_000,
      restartCount: 0,
      addresses: { [NETWORK]: "172.18.0.2" },
      ...c,
    };
    this.containers.set(full.id, full);
    return full;
  }

  private find(nameOrId: string): ManagedContainer | undefined {
    return this.containers.get(nameOrId) ?? [...this.containers.values()].find((c) => c.name === nameOrId);
  }

  async ping() {
    this.record("ping");
  }
  async listContainers(labelFilters: string[]) {
    this.record("listContainers", labelFilters);
    return [...this.containers.values()]
      .filter((c) => labelFilters.every((f) => {
        const [k, v] = f.split("=") as [string, string];
        return c.labels[k] === v;
      }))
      .map((c) => ({ ...c }));
  }
  async inspectContainer(nameOrId: string) {
    this.record("inspectContainer", nameOrId);
    const c = this.find(nameOrId);
    return c ? { ...c } : null;
  }
  async imageId(ref: string) {
    this.record("imageId", ref);
    return this.images.get(ref) ?? null;
  }
  async pullImage(ref: string, auth: RegistryAuth | null, onProgress: (p: PullProgress) => void) {
    this.record("pullImage", ref, auth);
    const outcome = this.pulls.get(ref);
    if (outcome === undefined) throw new Error(`pull access denied for ${ref}: not in the fake registry`);
    if (outcome instanceof Error) throw outcome;
    onProgress({ status: "Downloading", id: "layer1", current: 50, total: 100 });
    this.images.set(ref, outcome);
  }
  async inspectNetwork(name: string) {
    this.record("inspectNetwork", name);
    return this.networks.get(name) ?? null;
  }
  async listNetworks(labelFilters: string[]) {
    this.record("listNetworks", labelFilters);
    // Docker's default bridge is there too, outside our pool.
    return [{ id: "bridge", name: "bridge", labels: {}, subnets: ["172.17.0.0/16"], gateway: "172.17.0.1", containers: [] }, ...this.networks.values()];
  }
  async createNetwork(name: string, labels: Record<string, string>, subnet: string, gateway: string) {
    this.record("createNetwork", name, labels, subnet, gateway);
    if (this.networks.has(name)) return false;
    this.networks.set(name, { id: `net-${name}`, name, labels, subnets: [subnet], gateway, containers: [] });
    return true;
  }
  async disconnectNetwork(name: string, containerId: string) {
    this.record("disconnectNetwork", name, containerId);
  }
  async removeNetwork(name: string) {
    this.record("removeNetwork", name);
  }
  async createContainer(opts: Parameters<Runtime["createContainer"]>[0]) {
    this.record("createContainer", opts);
    const name = opts.name ?? `anon-${++this.seq}`;
    if (this.find(name)) return null;
    this.add({ name, state: "created", labels: opts.Labels ?? {}, startedAt: 0, createdAt: Date.now(), addresses: {} });
    return `id-${name}`;
  }
  async startContainer(id: string) {
    this.record("startContainer", id);
    const c = this.find(id);
    if (!c) throw new Error(`no such container ${id}`);
    if (c.labels[Labels.role] !== undefined) Object.assign(c, { state: "exited", exitCode: this.hookExit, startedAt: Date.now() });
    else if (this.onStart === "exits") Object.assign(c, { state: "exited", exitCode: 1 });
    else Object.assign(c, { state: "running", startedAt: Date.now(), addresses: { [NETWORK]: "172.18.0.9" } });
  }
  async stopContainer(id: string, timeoutSeconds: number) {
    this.record("stopContainer", id, timeoutSeconds);
    const c = this.find(id);
    if (c) Object.assign(c, { state: "exited", exitCode: 0 });
  }
  async removeContainer(id: string) {
    this.record("removeContainer", id);
    this.containers.delete(id);
  }
  async followLogs(id: string, _onChunk: (text: string) => void) {
    this.record("followLogs", id);
  }
  async waitExit(id: string) {
    this.record("waitExit", id);
    return this.find(id)?.exitCode ?? 0;
  }
  async exec(id: string, argv: string[], _onChunk: (text: string) => void) {
    this.record("exec", id, argv);
    return { exitCode: this.execExit };
  }
  watchContainers() {
    return () => {};
  }

  async setRestartPolicy(id: string, policy: "no" | "unless-stopped") {
    this.record("setRestartPolicy", id, policy);
  }
  async containerLogs(id: string, tailLines: number) {
    this.record("containerLogs", id, tailLines);
    return "listening on :8080\npanic: config missing\n";
  }

  /** The calls that change something on the engine. */
  writes(): Call[] {
    const reads = new Set(["ping", "listContainers", "inspectContainer", "imageId", "inspectNetwork", "listNetworks", "containerLogs", "followLogs", "waitExit"]);
    return this.calls.filter(([m]) => !reads.has(m));
  }
}

class FakeStatus implements StatusWriter {
  readonly statuses: [string, ObservedStatus][] = [];
  readonly releaseUpdates: [string, ReleaseUpdate][] = [];
  async setStatus(serviceId: string, status: ObservedStatus) {
    this.statuses.push([serviceId, status]);
  }
  async updateRelease(releaseId: string, update: ReleaseUpdate) {
    this.releaseUpdates.push([releaseId, update]);
  }
  last(): ObservedStatus | undefined {
    return this.statuses.at(-1)?.[1];
  }
}

class FakeProber implements Prober {
  readonly urls: [string, number][] = [];
  result: ProbeResult = { ready: false, detail: "HTTP 503" };
  async probe(url: string, timeoutMs: number) {
    this.urls.push([url, timeoutMs]);
    return this.result;
  }
}

/** The mesh DNS as the controller sees it: which container a name answers, and which gateways serve. */
class FakeMesh implements MeshPort {
  readonly calls: Call[] = [];
  setActive(name: string, address: string | null) {
    this.calls.push(["setActive", [name, address]]);
  }
  async serveApp(gateway: string, app: string) {
    this.calls.push(["serveApp", [gateway, app]]);
  }
}

class FakeDeploys implements DeployRecorder {
  readonly recorded: [string, string][] = [];
  async recordDeploy(releaseId: string, outcome: "succeeded" | "failed") {
    this.recorded.push([releaseId, outcome]);
  }
}

/** Keeps hook runs in memory, as the PostgreSQL recorder would. */
class FakeHookRecorder implements HookRecorder {
  readonly runs: { phase: HookPhase; command: string[]; attempt: string; outcome: HookOutcome | "running"; exitCode: number | null; message: string }[] = [];
  async begin(run: { phase: HookPhase; command: string[]; attempt: string }) {
    this.runs.push({ phase: run.phase, command: run.command, attempt: run.attempt, outcome: "running", exitCode: null, message: "" });
    return String(this.runs.length - 1);
  }
  async progress() {}
  async finish(runId: string, r: { exitCode: number | null; outcome: HookOutcome; message: string }) {
    Object.assign(this.runs[Number(runId)]!, { exitCode: r.exitCode, outcome: r.outcome, message: r.message });
  }
  async succeeded(_releaseId: string, phase: HookPhase) {
    return this.runs.some((r) => r.phase === phase && r.outcome === "succeeded");
  }
}

const spec = (over: Partial<ReleaseSpec> = {}): ReleaseSpec => ({
  image: IMAGE_REF,
  port: 8080,
  healthPath: "/healthz",
  readyBudgetSeconds: 60,
  strategy: "blue-green",
  env: { GREETING: "hello", LOG_LEVEL: "info" },
  hooks: { preDeploy: null, postDeploy: null, timeoutSeconds: 300 },
  ...over,
});

const release = (over: Partial<DesiredRelease> = {}): DesiredRelease => ({
  id: "rel-2",
  spec: spec(),
  restartNonce: "",
  imageId: null,
  outcome: "pending",
  finishedAt: null,
  ...over,
});

const envTarget: EnvTarget = {
  serviceId: "svc-1",
  orgId: "org-1",
  projectId: "proj-1",
  environmentId: "env-1",
  env: {},
  secretKeys: [],
  storageTargetId: null,
  databaseEnv: {},
};

const service = (rel: DesiredRelease | null, over: Partial<DesiredService> = {}): DesiredService => ({
  id: "svc-1",
  name: "web",
  appId: APP_ID,
  appName: "shop",
  orgId: "org-1",
  registryCredentialId: null,
  envTarget,
  release: rel,
  ...over,
});

/** The organization tier adds one var, so the test sees the resolved env, not just the spec's. */
const envStores: EnvStores = { organizationEnv: { envOf: async () => ({ ORG_WIDE: "1", LOG_LEVEL: "warn" }) } };
const RESOLVED_ENV = { GREETING: "hello", LOG_LEVEL: "info", ORG_WIDE: "1" };

/** The container a release must run, as the controller builds it. */
const planFor = (rel: DesiredRelease, imageId = IMAGE_ID) =>
  containerOptions({
    shortName: SHORT,
    service: "web",
    appId: APP_ID,
    releaseId: rel.id,
    imageId,
    restartNonce: rel.restartNonce,
    spec: rel.spec,
    env: RESOLVED_ENV,
    dns: [GATEWAY],
  });

const OLD_NAME = containerName(SHORT, "web", OLD_IMAGE_ID, "");
const FILTER = serviceFilter(SHORT, "web");

function setup(desired: DesiredService | null, opts: { registry?: RegistryStore; hooks?: HookRecorder; network?: boolean } = {}) {
  const runtime = new FakeRuntime({ network: opts.network ?? true });
  const status = new FakeStatus();
  const prober = new FakeProber();
  const mesh = new FakeMesh();
  const deploys = new FakeDeploys();
  const lookups: string[] = [];
  const store: ServiceStore = {
    async getDesiredService(name) {
      lookups.push(name);
      return desired;
    },
  };
  const controller = applicationController({
    shortName: SHORT,
    runtime,
    store,
    status,
    prober,
    probeIntervalMs: PROBE_INTERVAL_MS,
    envStores,
    registry: opts.registry,
    hooks: opts.hooks,
    defaultHookTimeoutSeconds: 300,
    networkPool: POOL,
    mesh,
    drainMs: DRAIN_MS,
    deploys,
  });
  return { runtime, status, prober, mesh, deploys, lookups, reconcile: () => controller.reconcile("service:web") };
}

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** What the status said, step by step: [phase, step, message]. */
const steps = (status: FakeStatus) => status.statuses.map(([, st]) => [st.phase, st.step, st.message]);

/** A deploy in progress: the old container serves, the new one runs and is being probed. */
function inProgress(createdAgoMs: number, over: Partial<DesiredRelease> = {}, opts: { hooks?: HookRecorder } = {}) {
  const rel = release({ imageId: IMAGE_ID, outcome: "deploying", ...over });
  const desired = service(rel);
  const s = setup(desired, opts);
  const plan = planFor(rel);
  s.runtime.add({ name: OLD_NAME });
  s.runtime.add({ name: plan.name, labels: plan.Labels ?? {}, createdAt: NOW - createdAgoMs, addresses: { [NETWORK]: "172.18.0.9" } });
  return { ...s, plan, rel, desired };
}

describe("application controller: nothing to run", () => {
  it("no release: removes every container of the service, hook containers included, and reports stopped", async () => {
    const { runtime, status, lookups, reconcile } = setup(service(null));
    runtime.add({ name: OLD_NAME });
    runtime.add({ name: "lrt-web-exited000000", state: "exited", exitCode: 0 });
    runtime.add({ name: `${OLD_NAME}-pre-deploy`, labels: { ...serviceLabels(SHORT, "web", APP_ID, "rel-old"), [Labels.role]: "pre-deploy" } });
    // Not ours: another service, another installation, and no managed label at all.
    runtime.add({ name: "lrt-api-aaaaaaaaaaaa", labels: serviceLabels(SHORT, "api", APP_ID, "r") });
    runtime.add({ name: "other-web-aaaaaaaaaaaa", labels: serviceLabels("other", "web", APP_ID, "r") });
    runtime.add({ name: "foreign", labels: { "levelrail.service": "web" } });

    expect(await reconcile()).toBeUndefined();
    expect(lookups).toEqual(["web"]);
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["removeContainer", [`id-${OLD_NAME}`]],
      ["removeContainer", ["id-lrt-web-exited000000"]],
      ["removeContainer", [`id-${OLD_NAME}-pre-deploy`]],
    ]);
    expect(status.statuses).toEqual([["svc-1", { phase: "stopped", step: null, image: null, activeContainer: null, message: "not deployed yet" }]]);
    expect(status.releaseUpdates).toEqual([]);
    expect([...runtime.containers.values()].map((c) => c.name).sort()).toEqual(["foreign", "lrt-api-aaaaaaaaaaaa", "other-web-aaaaaaaaaaaa"]);
  });

  it("service gone: removes its containers and writes no status", async () => {
    const { runtime, status, reconcile } = setup(null);
    runtime.add({ name: OLD_NAME });
    runtime.add({ name: "lrt-web-created00000", state: "created" });
    expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["removeContainer", [`id-${OLD_NAME}`]],
      ["removeContainer", ["id-lrt-web-created00000"]],
    ]);
    expect(status.statuses).toEqual([]);
    expect(status.releaseUpdates).toEqual([]);
  });

  it("service gone and nothing left: only looks", async () => {
    const { runtime, reconcile } = setup(null);
    await reconcile();
    expect(runtime.calls).toEqual([["listContainers", [FILTER]]]);
  });
});

describe("application controller: first deploy", () => {
  it("pulls a missing image, makes the app network, creates and starts the container, and polls while it is not ready", async () => {
    const rel = release();
    const { runtime, status, prober, mesh, deploys, reconcile } = setup(service(rel), { network: false });
    runtime.pulls.set(IMAGE_REF, IMAGE_ID);
    const plan = planFor(rel);
    const id = `id-${plan.name}`;

    expect(await reconcile()).toEqual({ requeueAfterMs: PROBE_INTERVAL_MS });
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["imageId", [IMAGE_REF]],
      ["pullImage", [IMAGE_REF, null]],
      ["imageId", [IMAGE_REF]],
      ["inspectNetwork", [NETWORK]],
      ["listNetworks", [[]]],
      ["createNetwork", [NETWORK, networkLabels(SHORT, APP_ID), SUBNET, GATEWAY]],
      ["inspectNetwork", [NETWORK]],
      ["createContainer", [plan]],
      ["inspectContainer", [plan.name]],
      ["startContainer", [id]],
      ["inspectContainer", [id]],
    ]);
    expect(plan.HostConfig?.Dns).toEqual([GATEWAY]);
    expect(mesh.calls).toEqual([["serveApp", [GATEWAY, "shop"]]]);
    expect(prober.urls).toEqual([["http://172.18.0.9:8080/healthz", 2000]]);
    expect(status.releaseUpdates).toEqual([
      ["rel-2", { imageId: IMAGE_ID }],
      ["rel-2", { outcome: "deploying" }],
    ]);
    expect(steps(status)).toEqual([
      ["deploying", "pulling", `pulling ${IMAGE_REF}`],
      ["deploying", "pulling", `pulling ${IMAGE_REF}: Downloading layer1 50%`],
      ["deploying", "starting", `starting ${plan.name}`],
      ["deploying", "probing", `waiting for ${plan.name} to be ready (GET /healthz: HTTP 503, 0s of 60s)`],
    ]);
    expect(status.last()).toEqual({
      phase: "deploying",
      step: "probing",
      image: IMAGE_REF,
      activeContainer: null,
      message: `waiting for ${plan.name} to be ready (GET /healthz: HTTP 503, 0s of 60s)`,
    });
    // Nothing removed: the new container keeps proving itself.
    expect(runtime.calls.filter(([m]) => m === "removeContainer")).toEqual([]);
    expect(deploys.recorded).toEqual([]);
  });

  it("the next pass adopts the container, and a ready probe switches to it", async () => {
    const rel = release();
    const desired = service(rel);
    const { runtime, status, prober, mesh, deploys, reconcile } = setup(desired);
    runtime.pulls.set(IMAGE_REF, IMAGE_ID);
    await reconcile();

    // What the store would return now: the resolved image, deploying.
    desired.release = { ...rel, imageId: IMAGE_ID, outcome: "deploying" };
    runtime.calls.length = 0;
    mesh.calls.length = 0;
    status.statuses.length = 0;
    status.releaseUpdates.length = 0;
    prober.result = { ready: true, detail: "HTTP 200" };
    const plan = planFor(rel);

    expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["setRestartPolicy", [`id-${plan.name}`, "unless-stopped"]],
    ]);
    expect(mesh.calls).toEqual([
      ["serveApp", [GATEWAY, "shop"]],
      ["setActive", [DNS_NAME, "172.18.0.9"]],
    ]);
    expect(status.releaseUpdates).toEqual([["rel-2", { outcome: "succeeded", container: plan.name, message: "" }]]);
    expect(status.statuses).toEqual([["svc-1", { phase: "running", step: null, image: IMAGE_REF, activeContainer: plan.name, message: "" }]]);
    expect(deploys.recorded).toEqual([["rel-2", "succeeded"]]);
  });

  it("does not pull an image with a fixed tag that the engine has", async () => {
    const rel = release();
    const { runtime, reconcile } = setup(service(rel));
    runtime.images.set(IMAGE_REF, IMAGE_ID);
    await reconcile();
    expect(runtime.calls.slice(0, 3)).toEqual([
      ["listContainers", [FILTER]],
      ["imageId", [IMAGE_REF]],
      ["imageId", [IMAGE_REF]],
    ]);
    expect(runtime.calls.some(([m]) => m === "pullImage")).toBe(false);
  });

  it("pulls :latest on every deploy even when the engine has it, with the declared registry login", async () => {
    const ref = "registry.example.com/shop:latest";
    const rel = release({ spec: spec({ image: ref }) });
    const auth: RegistryAuth = { username: "u", password: "p", serveraddress: "registry.example.com" };
    const asked: [string, string][] = [];
    const { runtime, reconcile } = setup(service(rel, { registryCredentialId: "cred-1" }), {
      registry: { registryAuth: async (orgId, id) => (asked.push([orgId, id]), auth) },
    });
    runtime.images.set(ref, OLD_IMAGE_ID);
    runtime.pulls.set(ref, IMAGE_ID);
    await reconcile();
    expect(asked).toEqual([["org-1", "cred-1"]]);
    expect(runtime.calls.slice(0, 4)).toEqual([
      ["listContainers", [FILTER]],
      ["imageId", [ref]],
      ["pullImage", [ref, auth]],
      ["imageId", [ref]],
    ]);
    expect(runtime.calls).toContainEqual(["createContainer", [planFor(rel, IMAGE_ID)]]);
  });

  it("a pull failure fails the release with the engine's message and creates nothing", async () => {
    const rel = release();
    const { runtime, status, deploys, reconcile } = setup(service(rel));
    runtime.add({ name: OLD_NAME });
    runtime.pulls.set(IMAGE_REF, new Error("manifest for registry.example.com/shop:1.4.2 not found: manifest unknown"));

    expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["imageId", [IMAGE_REF]],
      ["pullImage", [IMAGE_REF, null]],
    ]);
    const message = `image ${IMAGE_REF} could not be pulled: manifest for registry.example.com/shop:1.4.2 not found: manifest unknown`;
    expect(status.releaseUpdates).toEqual([["rel-2", { outcome: "failed", message }]]);
    expect(status.last()).toEqual({ phase: "failed", step: null, image: IMAGE_REF, activeContainer: OLD_NAME, message: `${message}; ${OLD_NAME} keeps serving` });
    expect(deploys.recorded).toEqual([["rel-2", "failed"]]);
  });

  it("a declared registry credential the worker cannot resolve fails the release before any pull", async () => {
    const rel = release();
    const { runtime, status, reconcile } = setup(service(rel, { registryCredentialId: "cred-9" }));
    await reconcile();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["imageId", [IMAGE_REF]],
    ]);
    expect(status.releaseUpdates).toEqual([
      ["rel-2", { outcome: "failed", message: "registry credential cred-9 is declared but the worker has no registry store" }],
    ]);
    expect(status.last()?.phase).toBe("failed");
  });

  it("a declared secret that cannot be resolved fails the release before anything is pulled or started", async () => {
    const rel = release();
    const { runtime, status, reconcile } = setup(service(rel, { envTarget: { ...envTarget, secretKeys: ["API_KEY"] } }));
    runtime.add({ name: OLD_NAME });
    await reconcile();
    expect(runtime.calls).toEqual([["listContainers", [FILTER]]]);
    const message = "secrets API_KEY are declared but no secret store is configured";
    expect(status.releaseUpdates).toEqual([["rel-2", { outcome: "failed", message }]]);
    expect(status.last()).toEqual({ phase: "failed", step: null, image: IMAGE_REF, activeContainer: OLD_NAME, message: `${message}; ${OLD_NAME} keeps serving` });
  });

  it("a container that exits before it is ready is removed and fails the release with its exit code and output", async () => {
    const rel = release({ imageId: IMAGE_ID });
    const { runtime, status, prober, reconcile } = setup(service(rel));
    runtime.add({ name: OLD_NAME });
    runtime.onStart = "exits";
    const plan = planFor(rel);
    const id = `id-${plan.name}`;

    expect(await reconcile()).toBeUndefined();
    expect(runtime.writes()).toEqual([
      ["createContainer", [plan]],
      ["startContainer", [id]],
      ["removeContainer", [id]],
    ]);
    expect(prober.urls).toEqual([]);
    expect(status.releaseUpdates.at(-1)).toEqual([
      "rel-2",
      { outcome: "failed", message: `${plan.name} exited with code 1 before it was ready; last output: listening on :8080\npanic: config missing` },
    ]);
    expect(status.last()?.activeContainer).toBe(OLD_NAME);
    expect(runtime.containers.has(`id-${OLD_NAME}`)).toBe(true);
  });
});

describe("application controller: cutover", () => {
  it("probe ready: restart policy unless-stopped, the mesh name switches, the old container drains, then goes", async () => {
    const { runtime, status, prober, mesh, deploys, plan, rel, desired, reconcile } = inProgress(5_000);
    prober.result = { ready: true, detail: "HTTP 200" };

    expect(await reconcile()).toEqual({ requeueAfterMs: DRAIN_MS });
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["setRestartPolicy", [`id-${plan.name}`, "unless-stopped"]],
    ]);
    expect(mesh.calls).toEqual([
      ["serveApp", [GATEWAY, "shop"]],
      ["setActive", [DNS_NAME, "172.18.0.9"]],
    ]);
    expect(prober.urls).toEqual([["http://172.18.0.9:8080/healthz", 2000]]);
    expect(status.releaseUpdates).toEqual([["rel-2", { outcome: "succeeded", container: plan.name, message: "" }]]);
    expect(deploys.recorded).toEqual([["rel-2", "succeeded"]]);
    expect(status.statuses).toEqual([
      ["svc-1", { phase: "deploying", step: "cutover", image: IMAGE_REF, activeContainer: plan.name, message: `${plan.name} is active; draining 1 old container(s)` }],
    ]);
    expect(runtime.containers.get(`id-${OLD_NAME}`)?.state).toBe("running");

    // The store now says succeeded, switched at NOW. Still draining 0.5 s later: nothing removed.
    desired.release = { ...rel, outcome: "succeeded", finishedAt: NOW };
    runtime.calls.length = 0;
    status.statuses.length = 0;
    vi.setSystemTime(NOW + 500);
    expect(await reconcile()).toEqual({ requeueAfterMs: 1_500 });
    expect(runtime.writes()).toEqual([]);
    expect(status.last()).toEqual({
      phase: "deploying",
      step: "cutover",
      image: IMAGE_REF,
      activeContainer: plan.name,
      message: `${plan.name} is active; draining 1 old container(s) for 1.5s`,
    });

    // Drained: the old container goes, the service is running.
    runtime.calls.length = 0;
    status.statuses.length = 0;
    vi.setSystemTime(NOW + DRAIN_MS);
    expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["removeContainer", [`id-${OLD_NAME}`]],
    ]);
    expect(status.statuses).toEqual([["svc-1", { phase: "running", step: null, image: IMAGE_REF, activeContainer: plan.name, message: "" }]]);
    expect(deploys.recorded).toHaveLength(1);
  });

  it("probe not ready within the budget: polls again after probeIntervalMs and removes nothing", async () => {
    const { runtime, status, plan, reconcile } = inProgress(12_000);
    expect(await reconcile()).toEqual({ requeueAfterMs: PROBE_INTERVAL_MS });
    expect(runtime.writes()).toEqual([]);
    expect(status.releaseUpdates).toEqual([]);
    expect(status.last()).toEqual({
      phase: "deploying",
      step: "probing",
      image: IMAGE_REF,
      activeContainer: OLD_NAME,
      message: `waiting for ${plan.name} to be ready (GET /healthz: HTTP 503, 12s of 60s)`,
    });
  });

  it("budget exceeded: the new container is removed, the release fails, the old one is untouched", async () => {
    const { runtime, status, mesh, plan, reconcile } = inProgress(60_000);
    expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["removeContainer", [`id-${plan.name}`]],
    ]);
    const message = `${plan.name} was not ready within 60s (GET /healthz on port 8080: HTTP 503)`;
    expect(status.releaseUpdates).toEqual([["rel-2", { outcome: "failed", message }]]);
    expect(status.statuses).toEqual([
      ["svc-1", { phase: "failed", step: null, image: IMAGE_REF, activeContainer: OLD_NAME, message: `${message}; ${OLD_NAME} keeps serving` }],
    ]);
    expect(runtime.containers.get(`id-${OLD_NAME}`)?.state).toBe("running");
    expect(mesh.calls.filter(([m]) => m === "setActive")).toEqual([]);
  });

  it("a failed release causes no Docker write at all (no churn)", async () => {
    const rel = release({ imageId: IMAGE_ID, outcome: "failed" });
    const { runtime, status, prober, mesh, reconcile } = setup(service(rel));
    runtime.add({ name: OLD_NAME });
    runtime.add({ name: "lrt-web-leftover0000", state: "exited", exitCode: 1 });
    for (let i = 0; i < 3; i++) expect(await reconcile()).toBeUndefined();
    // The container that keeps serving stays the mesh name's answer, even for a worker that just started.
    expect(mesh.calls).toEqual([
      ["setActive", [DNS_NAME, "172.18.0.2"]],
      ["setActive", [DNS_NAME, "172.18.0.2"]],
      ["setActive", [DNS_NAME, "172.18.0.2"]],
    ]);
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["listContainers", [FILTER]],
      ["listContainers", [FILTER]],
    ]);
    expect(prober.urls).toEqual([]);
    expect(status.statuses).toEqual([]);
    expect(status.releaseUpdates).toEqual([]);
  });

  it("a converged service only clears leftovers", async () => {
    const rel = release({ imageId: IMAGE_ID, outcome: "succeeded", finishedAt: NOW - 3_600_000 });
    const { runtime, status, prober, mesh, reconcile } = setup(service(rel));
    const plan = planFor(rel);
    runtime.add({ name: plan.name, labels: plan.Labels ?? {} });
    runtime.add({ name: OLD_NAME, state: "exited", exitCode: 0 });
    expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["removeContainer", [`id-${OLD_NAME}`]],
    ]);
    expect(mesh.calls).toEqual([
      ["serveApp", [GATEWAY, "shop"]],
      ["setActive", [DNS_NAME, "172.18.0.2"]],
    ]);
    expect(prober.urls).toEqual([]);
    expect(status.releaseUpdates).toEqual([]);
    expect(status.statuses).toEqual([["svc-1", { phase: "running", step: null, image: IMAGE_REF, activeContainer: plan.name, message: "" }]]);
  });

  it("adopts a container of the same name left in 'created' by an earlier pass instead of creating another", async () => {
    const rel = release({ imageId: IMAGE_ID, outcome: "deploying" });
    const { runtime, reconcile } = setup(service(rel));
    const plan = planFor(rel);
    runtime.add({ name: plan.name, labels: plan.Labels ?? {}, state: "created", createdAt: NOW, addresses: {} });
    await reconcile();
    expect(runtime.writes()).toEqual([["startContainer", [`id-${plan.name}`]]]);
  });

  it("recreate: stops and removes the old container before creating the new one", async () => {
    const rel = release({ spec: spec({ strategy: "recreate" }), imageId: IMAGE_ID });
    const { runtime, status, reconcile } = setup(service(rel));
    runtime.add({ name: OLD_NAME });
    const plan = planFor(rel);
    const id = `id-${plan.name}`;

    expect(await reconcile()).toEqual({ requeueAfterMs: PROBE_INTERVAL_MS });
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["stopContainer", [`id-${OLD_NAME}`, 10]],
      ["removeContainer", [`id-${OLD_NAME}`]],
      ["createContainer", [plan]],
      ["inspectContainer", [plan.name]],
      ["startContainer", [id]],
      ["inspectContainer", [id]],
    ]);
    expect(status.statuses.map(([, s]) => [s.phase, s.step, s.activeContainer, s.message])).toEqual([
      ["deploying", "starting", null, "stopping the old container (recreate)"],
      ["deploying", "starting", null, `starting ${plan.name}`],
      ["deploying", "probing", null, `waiting for ${plan.name} to be ready (GET /healthz: HTTP 503, 0s of 60s)`],
    ]);
  });

  it("recreate: a failure after the old container went does not claim it keeps serving", async () => {
    const rel = release({ spec: spec({ strategy: "recreate" }), imageId: IMAGE_ID });
    const { runtime, status, reconcile } = setup(service(rel));
    runtime.add({ name: OLD_NAME });
    runtime.onStart = "exits";
    const plan = planFor(rel);
    await reconcile();
    expect(status.last()).toEqual({
      phase: "failed",
      step: null,
      image: IMAGE_REF,
      activeContainer: null,
      message: `${plan.name} exited with code 1 before it was ready; last output: listening on :8080\npanic: config missing`,
    });
  });

  it("blue-green: the old container keeps running while the new one starts", async () => {
    const rel = release({ imageId: IMAGE_ID });
    const { runtime, status, reconcile } = setup(service(rel));
    runtime.add({ name: OLD_NAME });
    const plan = planFor(rel);
    await reconcile();
    expect(runtime.writes()).toEqual([
      ["createContainer", [plan]],
      ["startContainer", [`id-${plan.name}`]],
    ]);
    expect(status.last()?.activeContainer).toBe(OLD_NAME);
  });
});

describe("application controller: hooks", () => {
  const PRE = ["/app/bin/migrate", "--to", "latest; rm -rf /"];
  const POST = ["/app/bin/smoke", "--url", "http://127.0.0.1:8080/"];
  const withHooks = (hooks: Partial<ReleaseSpec["hooks"]>, over: Partial<DesiredRelease> = {}) =>
    release({ imageId: IMAGE_ID, spec: spec({ hooks: { preDeploy: null, postDeploy: null, timeoutSeconds: 300, ...hooks } }), ...over });
  const hookOf = (rel: DesiredRelease) => preDeployContainer(planFor(rel), rel.spec.hooks.preDeploy!);

  it("the pre-deploy hook runs in a one-off container of the new image before the service container is created, and is recorded", async () => {
    const rel = withHooks({ preDeploy: PRE });
    const recorder = new FakeHookRecorder();
    const { runtime, status, reconcile } = setup(service(rel), { hooks: recorder });
    runtime.add({ name: OLD_NAME });
    const plan = planFor(rel);
    const hook = hookOf(rel);
    const hookId = `id-${hook.name}`;

    expect(await reconcile()).toEqual({ requeueAfterMs: PROBE_INTERVAL_MS });
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["inspectContainer", [hook.name]],
      ["createContainer", [hook]],
      ["inspectContainer", [hook.name]],
      ["startContainer", [hookId]],
      ["followLogs", [hookId]],
      ["waitExit", [hookId]],
      ["removeContainer", [hookId]],
      ["createContainer", [plan]],
      ["inspectContainer", [plan.name]],
      ["startContainer", [`id-${plan.name}`]],
      ["inspectContainer", [`id-${plan.name}`]],
    ]);
    // The hook container: the new image, the resolved env, the app network and its DNS, argv as given.
    expect(hook).toMatchObject({
      name: `${plan.name}-pre-deploy`,
      Image: IMAGE_ID,
      Entrypoint: ["/app/bin/migrate"],
      Cmd: ["--to", "latest; rm -rf /"],
      Env: plan.Env,
      Labels: { ...plan.Labels, [Labels.role]: "pre-deploy" },
      HostConfig: { NetworkMode: NETWORK, Dns: [GATEWAY] },
    });
    expect(steps(status)).toEqual([
      ["deploying", "pre-deploy", `running the pre-deploy hook ${JSON.stringify(PRE)}`],
      ["deploying", "starting", `starting ${plan.name}`],
      ["deploying", "probing", `waiting for ${plan.name} to be ready (GET /healthz: HTTP 503, 0s of 60s)`],
    ]);
    expect(status.statuses.every(([, st]) => st.activeContainer === OLD_NAME)).toBe(true);
    expect(recorder.runs).toEqual([{ phase: "pre", command: PRE, attempt: hookId, outcome: "succeeded", exitCode: 0, message: "" }]);
  });

  it("a failing pre-deploy hook (no recorder: it still gates) creates no service container and leaves the old one serving", async () => {
    const rel = withHooks({ preDeploy: PRE });
    const { runtime, status, deploys, reconcile } = setup(service(rel));
    runtime.add({ name: OLD_NAME });
    runtime.hookExit = 3;
    const hook = hookOf(rel);
    const hookId = `id-${hook.name}`;

    expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["inspectContainer", [hook.name]],
      ["createContainer", [hook]],
      ["inspectContainer", [hook.name]],
      ["startContainer", [hookId]],
      ["followLogs", [hookId]],
      ["waitExit", [hookId]],
      ["removeContainer", [hookId]],
    ]);
    const message = `pre-deploy hook ${JSON.stringify(PRE)} failed with exit code 3`;
    expect(status.releaseUpdates).toEqual([
      ["rel-2", { outcome: "deploying" }],
      ["rel-2", { outcome: "failed", message }],
    ]);
    expect(status.last()).toEqual({ phase: "failed", step: null, image: IMAGE_REF, activeContainer: OLD_NAME, message: `${message}; ${OLD_NAME} keeps serving` });
    expect(deploys.recorded).toEqual([["rel-2", "failed"]]);
    expect([...runtime.containers.values()].map((c) => [c.name, c.state])).toEqual([[OLD_NAME, "running"]]);
  });

  it("recreate: a failing pre-deploy hook runs before the old container is stopped, so nothing is stopped", async () => {
    const rel = release({ imageId: IMAGE_ID, spec: spec({ strategy: "recreate", hooks: { preDeploy: PRE, postDeploy: null, timeoutSeconds: 300 } }) });
    const { runtime, status, reconcile } = setup(service(rel));
    runtime.add({ name: OLD_NAME });
    runtime.hookExit = 1;
    await reconcile();
    expect(runtime.writes().map(([m]) => m)).toEqual(["createContainer", "startContainer", "removeContainer"]);
    expect(runtime.calls.some(([m]) => m === "stopContainer")).toBe(false);
    expect(status.last()?.activeContainer).toBe(OLD_NAME);
  });

  it("the post-deploy hook runs inside the new container once it is ready, before the switch", async () => {
    const recorder = new FakeHookRecorder();
    const { runtime, status, prober, mesh, plan, reconcile } = inProgress(5_000, { spec: spec({ hooks: { preDeploy: null, postDeploy: POST, timeoutSeconds: 300 } }) }, { hooks: recorder });
    prober.result = { ready: true, detail: "HTTP 200" };

    expect(await reconcile()).toEqual({ requeueAfterMs: DRAIN_MS });
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["exec", [`id-${plan.name}`, POST]],
      ["setRestartPolicy", [`id-${plan.name}`, "unless-stopped"]],
    ]);
    expect(mesh.calls.map(([m]) => m)).toEqual(["serveApp", "setActive"]);
    expect(steps(status)).toEqual([
      ["deploying", "post-deploy", `running the post-deploy hook ${JSON.stringify(POST)} in ${plan.name}`],
      ["deploying", "cutover", `${plan.name} is active; draining 1 old container(s)`],
    ]);
    expect(recorder.runs).toEqual([{ phase: "post", command: POST, attempt: `exec-${`id-${plan.name}`.slice(0, 12)}-${NOW}`, outcome: "succeeded", exitCode: 0, message: "" }]);
  });

  it("a failing post-deploy hook removes the new container, keeps the old one, and never switches", async () => {
    const { runtime, status, prober, mesh, deploys, plan, reconcile } = inProgress(5_000, { spec: spec({ hooks: { preDeploy: null, postDeploy: POST, timeoutSeconds: 300 } }) });
    prober.result = { ready: true, detail: "HTTP 200" };
    runtime.execExit = 4;

    expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["exec", [`id-${plan.name}`, POST]],
      ["removeContainer", [`id-${plan.name}`]],
    ]);
    const message = `post-deploy hook ${JSON.stringify(POST)} failed with exit code 4`;
    expect(status.releaseUpdates).toEqual([["rel-2", { outcome: "failed", message }]]);
    expect(status.last()).toEqual({ phase: "failed", step: null, image: IMAGE_REF, activeContainer: OLD_NAME, message: `${message}; ${OLD_NAME} keeps serving` });
    expect(mesh.calls.filter(([m]) => m === "setActive")).toEqual([]);
    expect(deploys.recorded).toEqual([["rel-2", "failed"]]);
    expect([...runtime.containers.values()].map((c) => c.name)).toEqual([OLD_NAME]);
  });

  it("a pass that finds nothing to do runs no hook", async () => {
    const rel = withHooks({ preDeploy: PRE, postDeploy: POST }, { outcome: "succeeded", finishedAt: NOW - 3_600_000 });
    const { runtime, status, prober, reconcile } = setup(service(rel));
    const plan = planFor(rel);
    runtime.add({ name: plan.name, labels: plan.Labels ?? {} });
    for (let i = 0; i < 3; i++) expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
    ]);
    expect(prober.urls).toEqual([]);
    expect(status.statuses.map(([, st]) => st.step)).toEqual([null, null, null]);
  });

  it("a Deploy that changes nothing adopts the running container of another release and runs no hook", async () => {
    const rel = withHooks({ preDeploy: PRE, postDeploy: POST });
    const { runtime, status, prober, deploys, reconcile } = setup(service(rel));
    const plan = planFor(rel);
    // Same image, same config: the same name, made by the release before.
    runtime.add({ name: plan.name, labels: { ...plan.Labels, [Labels.release]: "rel-1" } });
    prober.result = { ready: true, detail: "HTTP 200" };

    expect(await reconcile()).toBeUndefined();
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["setRestartPolicy", [`id-${plan.name}`, "unless-stopped"]],
    ]);
    expect(status.releaseUpdates).toEqual([
      ["rel-2", { outcome: "deploying" }],
      ["rel-2", { outcome: "succeeded", container: plan.name, message: "" }],
    ]);
    expect(status.last()).toEqual({ phase: "running", step: null, image: IMAGE_REF, activeContainer: plan.name, message: "" });
    expect(deploys.recorded).toEqual([]); // no cutover happened
  });

  it("adopts this release's hook container after a crash mid-hook, and removes another release's", async () => {
    const rel = withHooks({ preDeploy: PRE }, { outcome: "deploying" });
    const recorder = new FakeHookRecorder();
    const { runtime, reconcile } = setup(service(rel), { hooks: recorder });
    const hook = hookOf(rel);
    const hookId = `id-${hook.name}`;
    const plan = planFor(rel);
    runtime.add({ name: OLD_NAME });
    runtime.add({ name: `${OLD_NAME}-pre-deploy`, state: "exited", exitCode: 0, labels: { ...serviceLabels(SHORT, "web", APP_ID, "rel-old"), [Labels.role]: "pre-deploy" } });
    runtime.add({ name: hook.name, state: "running", createdAt: NOW - 10_000, labels: hook.Labels ?? {} });

    await reconcile();
    expect(runtime.calls.slice(0, 7)).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["removeContainer", [`id-${OLD_NAME}-pre-deploy`]],
      ["inspectContainer", [hook.name]],
      ["followLogs", [hookId]],
      ["waitExit", [hookId]],
      ["removeContainer", [hookId]],
    ]);
    expect(runtime.calls.filter(([m]) => m === "createContainer")).toEqual([["createContainer", [plan]]]);
    expect(recorder.runs.map((r) => [r.attempt, r.outcome])).toEqual([[hookId, "succeeded"]]);
    expect(runtime.containers.has(`id-${OLD_NAME}`)).toBe(true);
  });

  it("a hook container of the same name made by another release is a leftover, not adopted", async () => {
    const rel = withHooks({ preDeploy: PRE });
    const { runtime, reconcile } = setup(service(rel));
    const hook = hookOf(rel);
    runtime.add({ name: hook.name, state: "running", labels: { ...hook.Labels, [Labels.release]: "rel-1" } });

    await reconcile();
    expect(runtime.calls.slice(0, 5)).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["removeContainer", [`id-${hook.name}`]],
      ["inspectContainer", [hook.name]],
      ["createContainer", [hook]],
    ]);
  });

  it("once the service container exists, a hook container left behind is removed and the hook is not run again", async () => {
    const rel = withHooks({ preDeploy: PRE }, { outcome: "deploying" });
    const { runtime, reconcile } = setup(service(rel));
    const hook = hookOf(rel);
    const plan = planFor(rel);
    runtime.add({ name: hook.name, state: "exited", exitCode: 0, labels: hook.Labels ?? {} });
    runtime.add({ name: plan.name, labels: plan.Labels ?? {}, createdAt: NOW - 1_000, addresses: { [NETWORK]: "172.18.0.9" } });

    expect(await reconcile()).toEqual({ requeueAfterMs: PROBE_INTERVAL_MS });
    expect(runtime.calls).toEqual([
      ["listContainers", [FILTER]],
      ["inspectNetwork", [NETWORK]],
      ["removeContainer", [`id-${hook.name}`]],
    ]);
  });
});
