/**
 * A world for the application controller's unit tests: the stateful fake engine, an in-memory store
 * (desired service, release, status), the mesh as a map and probes a test decides, and the container
 * informer over that engine (started at the first pass; each pass waits for the events before it
 * to be taken in, as the engine's would be by then). Tests assert what exists afterwards.
 */
import { FakeEngine } from "@levelrail/docker/fake";
import type { ActiveEntry, MeshPort } from "@levelrail/spec/dataplane";
import type { EnvStores } from "@levelrail/spec/env";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { type Role, Roles, containerName, networkLabels, networkName, serviceLabels } from "@levelrail/spec/naming";
import type { ReleaseSpec } from "@levelrail/spec/service";
import { ContainerInformer } from "../../containers/informer";
import type { ReconcileResult } from "../../reconcile/controller";
import type { HookOutcome, HookPhase, HookRecorder } from "./hooks";
import type { DesiredRelease, DesiredService, ObservedStatus, RegistryStore, ReleaseUpdate, ServiceStore, StatusWriter } from "./ports";
import type { HttpProbeTarget as ProbeTarget, ProbeObservation, ProberManager } from "./prober";
import { applicationController } from "./reconcile";

export const NOW = new Date("2026-03-01T12:00:00Z").getTime();
export const SHORT = "lrt";
export const SVC_ID = "3c9d7e21-5b4a-4f6e-8d2c-1a2b3c4d5e6f";
export const APP_ID = "app-1";
export const ENV_ID = "env-1";
export const NETWORK = networkName(SHORT, APP_ID);
export const GATEWAY = "10.201.0.1";
export const IMAGE_REF = "registry.example.com/shop:1.4.2";
export const IMAGE_ID = "sha256:1111";
export const OLD_REF = "registry.example.com/shop:1.4.1";
export const OLD_IMAGE_ID = "sha256:0000";
export const NEW = containerName(SHORT, "web", { serviceId: SVC_ID, imageId: IMAGE_ID, restartNonce: "" });
export const OLD = containerName(SHORT, "web", { serviceId: SVC_ID, imageId: OLD_IMAGE_ID, restartNonce: "" });

/** The labels the worker puts on a container of the service for `releaseId`. */
export const labelsOf = (releaseId: string, role: Role = Roles.service) => serviceLabels(SHORT, { serviceId: SVC_ID, appId: APP_ID, environmentId: ENV_ID, releaseId }, role);
export const KEY = formatKey(serviceKey(SVC_ID));
export const DRAIN_MS = 2000;

export const spec = (over: Partial<ReleaseSpec> = {}): ReleaseSpec => ({
  image: IMAGE_REF,
  port: 8080,
  healthPath: "/healthz",
  readyBudgetSeconds: 60,
  strategy: "blue-green",
  env: {},
  hooks: { preDeploy: null, postDeploy: null, timeoutSeconds: 300 },
  ...over,
});

/** The store: one service, its current release (updated as the real store does) and its status history. */
export class MemoryStore implements ServiceStore, StatusWriter {
  readonly statuses: ObservedStatus[] = [];
  readonly releases = new Map<string, DesiredRelease>();
  service: DesiredService | null;
  constructor(service: DesiredService | null) {
    this.service = service;
    if (service?.release) this.releases.set(service.release.id, service.release);
  }
  get status(): ObservedStatus | undefined {
    return this.statuses.at(-1);
  }
  get release(): DesiredRelease | null {
    return this.service?.release ?? null;
  }
  /** A new current release (a Deploy). */
  deploy(r: Partial<DesiredRelease> & { id: string; spec: ReleaseSpec }) {
    const rel: DesiredRelease = { restartNonce: "", imageId: null, outcome: "pending", finishedAt: null, message: "", ...r };
    this.releases.set(rel.id, rel);
    if (this.service) this.service = { ...this.service, release: rel };
  }
  /** As the real store reads it: with the status row as last written (null: none yet). */
  async getDesiredService(id: string): Promise<DesiredService | null> {
    return this.service?.id === id ? structuredClone({ ...this.service, storedStatus: this.statuses.at(-1) ?? null }) : null;
  }
  async setStatus(serviceId: string, st: ObservedStatus) {
    if (serviceId === this.service?.id) this.statuses.push(st);
  }
  async updateRelease(releaseId: string, u: ReleaseUpdate) {
    const r = this.releases.get(releaseId);
    if (!r || (r.outcome !== "pending" && r.outcome !== "deploying")) return;
    Object.assign(r, {
      ...(u.imageId === undefined ? {} : { imageId: u.imageId }),
      ...(u.imageCreatedAt === undefined ? {} : { imageCreatedAt: u.imageCreatedAt }),
      ...(u.outcome === undefined ? {} : { outcome: u.outcome }),
      ...(u.message === undefined ? {} : { message: u.message }),
      ...(u.outcome === "succeeded" || u.outcome === "failed" ? { finishedAt: Date.now() } : {}),
    });
  }
}

/** Probes decided by the test: `ready` says what any probe answers from now on; a ready one wakes the key. */
export class ScriptedProbes implements Pick<ProberManager, "register" | "forget" | "result"> {
  ready = true;
  readonly registered: ProbeTarget[] = [];
  /** Keys the manager would have woken (a ready probe), not yet taken by a pass. */
  readonly woken: string[] = [];
  private readonly results = new Map<string, ProbeObservation>();
  register(t: ProbeTarget) {
    this.registered.push(t);
    const at = Date.now();
    this.results.set(t.containerId, this.ready ? { ready: true, detail: "HTTP 200", at } : { ready: false, detail: "HTTP 503", at });
    if (this.ready) this.woken.push(t.key);
  }
  forget(id: string) {
    this.results.delete(id);
  }
  result(id: string) {
    return this.results.get(id) ?? null;
  }
}

/** Hook runs kept in memory. */
export class MemoryRecorder implements HookRecorder {
  readonly runs: { id: string; phase: HookPhase; command: string[]; attempt: string; outcome: HookOutcome | "running"; output: string; message: string }[] = [];
  async begin(run: { phase: HookPhase; command: string[]; attempt: string }) {
    const found = this.runs.find((r) => r.attempt === run.attempt);
    if (found) return found.id;
    const id = `run-${this.runs.length + 1}`;
    this.runs.push({ id, phase: run.phase, command: run.command, attempt: run.attempt, outcome: "running", output: "", message: "" });
    return id;
  }
  async progress() {}
  async finish(runId: string, r: { outcome: HookOutcome; output: string; message: string }) {
    Object.assign(this.runs.find((x) => x.id === runId)!, { outcome: r.outcome, output: r.output, message: r.message });
  }
  async succeeded(_releaseId: string, phase: HookPhase) {
    return this.runs.some((r) => r.phase === phase && r.outcome === "succeeded");
  }
}

export interface TestbedOptions {
  /** The service's release: by default the new image, pending. */
  release?: Partial<DesiredRelease> & { spec?: ReleaseSpec };
  service?: Partial<DesiredService> | null;
  envStores?: EnvStores;
  registry?: RegistryStore;
  hooks?: HookRecorder;
  drainMs?: number;
}

export function testbed(o: TestbedOptions = {}) {
  const engine = new FakeEngine();
  engine.registry.set(IMAGE_REF, IMAGE_ID);
  engine.registry.set(OLD_REF, OLD_IMAGE_ID);
  engine.addNetwork({ name: NETWORK, labels: networkLabels(SHORT, APP_ID), subnet: "10.201.0.0/26", gateway: GATEWAY });
  const release: DesiredRelease = { id: "rel-2", spec: spec(), restartNonce: "", imageId: null, outcome: "pending", finishedAt: null, message: "", ...o.release };
  const store = new MemoryStore(
    o.service === null
      ? null
      : {
          id: SVC_ID,
          name: "web",
          appId: APP_ID,
          appName: "shop",
          environmentId: ENV_ID,
          orgId: "org-1",
          registryCredentialId: null,
          envTarget: { serviceId: SVC_ID, orgId: "org-1", projectId: "p", environmentId: "e", env: {}, secretKeys: [], storageTargetId: null, databaseEnv: {} },
          release,
          ...o.service,
        },
  );
  const mesh = new Map<string, ActiveEntry | null>();
  const meshPort: MeshPort = {
    async setActive(id, entry) {
      mesh.set(id, entry);
    },
  };
  const probes = new ScriptedProbes();
  const deploys: [string, string][] = [];
  const pulled: [string, string][] = [];
  // Service events, and the store's read of the last one, as the real store's subquery gives it.
  const events: { orgId: string; serviceId: string; kind: "crash_loop_started" | "crash_loop_ended"; detail: string }[] = [];
  const informer = new ContainerInformer({ runtime: engine, shortName: SHORT, log: () => {} });
  let started: Promise<void> | null = null;
  const controller = applicationController({
    shortName: SHORT,
    runtime: engine,
    containers: informer,
    store,
    status: store,
    prober: probes,
    probeIntervalMs: 100,
    envStores: o.envStores ?? {},
    registry: o.registry,
    hooks: o.hooks,
    defaultHookTimeoutSeconds: 300,
    networkPool: { pool: "10.201.0.0/16", bits: 26 },
    mesh: meshPort,
    upstreamDns: [],
    drainMs: o.drainMs ?? DRAIN_MS,
    deploys: { recordDeploy: async (id, outcome) => void deploys.push([id, outcome]) },
    pulls: { recordPull: async (id, ref) => void pulled.push([id, ref]) },
    events: {
      async record(e) {
        events.push(e);
        if (store.service) store.service = { ...store.service, lastEvent: e.kind };
      },
    },
  });
  const pass = async () => {
    await (started ??= informer.start());
    await informer.settled();
    return controller.reconcile(KEY);
  };
  return {
    engine,
    informer,
    store,
    mesh,
    probes,
    deploys,
    /** [image id, ref] of every pull that brought an image to the host. */
    pulled,
    /** Every service event recorded (crash loops' starts and ends). */
    events,
    controller,
    pass,
    /** Runs passes while each asks to go on at once or the prober woke the key; returns the last pass's result. */
    async converge(max = 40): Promise<ReconcileResult | void> {
      for (let i = 0; i < max; i++) {
        const r = await pass();
        const woken = probes.woken.splice(0).length > 0;
        if (r?.requeueAfterMs !== 0 && !woken) return r;
      }
      throw new Error(`no rest after ${max} passes`);
    },
    /** The release that ran as an earlier pass left it: its container live (unless-stopped), the mesh on it. */
    live(name = OLD, releaseId = "rel-1") {
      // A live container's image is on the engine.
      if (name === NEW) engine.images.set(IMAGE_REF, IMAGE_ID);
      else engine.images.set(OLD_REF, OLD_IMAGE_ID);
      return engine.add({
        name,
        labels: labelsOf(releaseId),
        state: "running",
        startedAt: NOW - 3_600_000,
        createdAt: NOW - 3_600_000,
        restartPolicy: "unless-stopped",
        addresses: { [NETWORK]: "10.201.0.2" },
      });
    },
    names: () => [...engine.containers.values()].map((c) => c.name).sort(),
  };
}
