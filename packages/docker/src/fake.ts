import type Docker from "dockerode";
import { isPreDeployContainer } from "@levelrail/spec/naming";
import { envRecord } from "./env";
import { imageBuildTime } from "./images";
import { type ExecScript, FakeVolumes, matches, networkInfo, scriptedStream, snapshot, stoppable, stopped, summary } from "./fake-parts";
import type { ContainerStats } from "./stats";
import type { ContainerEvent, ContainerSummary, ExecStreamOptions, ImageInfo, ImageRemoval, ManagedContainer, NetworkInfo, OutputStream, PullProgress, RegistryAccess, RegistryAuth, Runtime, VolumeInfo } from "./index";

export type { ExecScript } from "./fake-parts";

/**
 * A Docker engine in memory that keeps state, for unit tests: a test sets up what exists, runs the
 * code, and asserts what exists afterwards (containers, labels, networks, images). Only where order
 * IS the behaviour (blue-green starts the new container before removing the old) does a test read
 * `calls`, the short log of lifecycle operations (`create <name>`, `start <name>`, `stop <name>`,
 * `remove <name>`, `pull <ref>`, `exec <name>`).
 *
 * Every change of a container emits its event to the watchers of its labels, as the engine does,
 * unless the test took the event stream down (`dropEvents`): then changes happen behind the
 * watchers' backs until `reconnect()`.
 */

/** What a container's process does once started: prints `chunks`, then exits with `exit`, or keeps running. */
export interface ProcessScript {
  chunks: string[];
  /** An exit code, or `"runs"`: it keeps running until stopped, removed or told to exit. */
  exit: number | "runs";
}

export interface FakeContainer extends ManagedContainer {
  restartPolicy: "no" | "unless-stopped";
  /** The options it was created with. */
  options: Docker.ContainerCreateOptions;
  /** Everything its process printed. */
  output: string;
}

export interface FakeNetwork {
  id: string;
  name: string;
  labels: Record<string, string>;
  subnet: string;
  gateway: string;
  /** Ids of the containers attached. */
  containers: string[];
  /** container id → the aliases it joined with (`connectNetwork`). */
  aliases: Record<string, string[]>;
}

type Waiter = (code: number) => void;

export class FakeEngine implements Runtime {
  readonly containers = new Map<string, FakeContainer>();
  readonly networks = new Map<string, FakeNetwork>();
  /** ref → image id: what the engine has locally. */
  readonly images = new Map<string, string>();
  /** ref → image id: what a registry would give a pull. */
  readonly registry = new Map<string, string>();
  /** ref → the password its registry wants (a private repository); other refs need no login. */
  readonly logins = new Map<string, string>();
  /** image id → its RepoDigests: set by a pull; an image put in `images` by a test was built on the host (none). */
  readonly repoDigests = new Map<string, string[]>();
  /** image id → its size in bytes (0 when unset). */
  readonly imageSizes = new Map<string, number>();
  /** image id → its engine `Created` time (unset: the engine tells none); its labels are `imageLabels`. */
  readonly imageTimes = new Map<string, string>();
  /** Every pull and the login it used. */
  readonly pulls: { ref: string; auth: RegistryAuth | null }[] = [];
  /** Lifecycle operations in order; read it only where order is the behaviour. */
  readonly calls: string[] = [];
  /** image (id or ref) → the labels it was built with: Docker merges them into its containers' (theirs win). */
  readonly imageLabels = new Map<string, Record<string, string>>();
  /** What a started container does; by default a pre-deploy hook's exits 0 and any other keeps running. */
  script: (c: FakeContainer) => ProcessScript = (c) => (isPreDeployContainer(c) ? { chunks: [], exit: 0 } : { chunks: [], exit: "runs" });
  /** What an exec does: its output and exit code, or `"runs"` (it never ends by itself); `execStream` passes what it read from stdin. */
  execScript: (argv: string[], stdin?: Buffer) => ExecScript = () => ({ chunks: [], exit: 0 });
  /** container id → what its stats read (a running container without an entry reads all zeros, its memory limit from its options). */
  readonly stats = new Map<string, ContainerStats>();
  /** The named volumes; one a container's options mount cannot be removed. */
  readonly volumes = new FakeVolumes((name) => [...this.containers.values()].find((c) => mounts(c.options, name))?.id ?? null);
  now: () => number = () => Date.now();

  private seq = 0;
  private nextPullError: string | null = null;
  private nextStartError: string | null = null;
  private nextWaitError: Error | null = null;
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly followers = new Map<string, ((text: string) => void)[]>();
  private readonly watchers = new Set<{ filters: string[]; onEvent: (e: ContainerEvent) => void; onConnected: (() => void) | undefined }>();
  /** While true, the event stream is down: events are lost (see `reconnect`). */
  dropEvents = false;

  // ---- scripting faults and situations ----

  /** The next pull fails with this engine message. */
  failNextPull(message: string): void {
    this.nextPullError = message;
  }
  /** The next start fails (e.g. the entrypoint is not in the image). */
  failNextStart(message: string): void {
    this.nextStartError = message;
  }
  /** The next waitExit throws, as an engine whose connection drops would. */
  failNextWait(err: Error): void {
    this.nextWaitError = err;
  }

  /** Puts a network in place as an earlier pass would have. */
  addNetwork(n: { name: string; labels?: Record<string, string>; subnet: string; gateway: string }): FakeNetwork {
    const net: FakeNetwork = { id: `net-${++this.seq}`, labels: {}, containers: [], aliases: {}, ...n };
    this.networks.set(n.name, net);
    return net;
  }

  /** The event stream comes back (an engine restart): watchers are told they are connected again. */
  reconnect(): void {
    this.dropEvents = false;
    for (const w of this.watchers) w.onConnected?.();
  }

  /** Puts a container in place as an earlier pass (or someone else: a name collision) would have; watchers see its `create`. */
  add(c: Partial<FakeContainer> & { name: string }): FakeContainer {
    const full = this.put(c);
    this.emit("create", full);
    return full;
  }

  private put(c: Partial<FakeContainer> & { name: string }): FakeContainer {
    const t = this.now();
    const full: FakeContainer = {
      id: `id-${c.name}`,
      state: "created",
      labels: {},
      startedAt: 0,
      finishedAt: 0,
      exitCode: null,
      createdAt: t,
      restartCount: 0,
      addresses: {},
      restartPolicy: "no",
      options: {},
      output: "",
      ...c,
    };
    this.containers.set(full.id, full);
    for (const net of Object.keys(full.addresses)) this.networks.get(net)?.containers.push(full.id);
    return full;
  }

  get(nameOrId: string): FakeContainer | undefined {
    return this.containers.get(nameOrId) ?? [...this.containers.values()].find((c) => c.name === nameOrId);
  }
  private must(nameOrId: string): FakeContainer {
    const c = this.get(nameOrId);
    if (!c) throw Object.assign(new Error(`no such container: ${nameOrId}`), { statusCode: 404 });
    return c;
  }

  /** The container's process prints `text` (followers of its logs get it at once). */
  print(nameOrId: string, text: string): void {
    const c = this.must(nameOrId);
    c.output += text;
    for (const f of this.followers.get(c.id) ?? []) f(text);
  }

  /** The container's process ends with `code` (the engine restarts it only under its restart policy: see `restart`). */
  exit(nameOrId: string, code: number): void {
    const c = this.must(nameOrId);
    Object.assign(c, { state: "exited", exitCode: code, finishedAt: this.now() });
    this.emit("die", c);
    this.wake(c.id, code);
  }
  /** The container exited with `code` and the engine restarted it: running again, one restart more. */
  restart(nameOrId: string, code: number): void {
    const c = this.must(nameOrId);
    const t = this.now();
    Object.assign(c, { state: "running", exitCode: code, finishedAt: t, startedAt: t, restartCount: c.restartCount + 1 });
    this.emit("die", c);
    this.emit("start", c);
  }
  /** The engine is between restarts of a container that keeps exiting with `code`. */
  crashLoop(nameOrId: string, code: number, restarts: number): void {
    const c = this.must(nameOrId);
    const t = this.now();
    Object.assign(c, { state: "restarting", exitCode: code, finishedAt: t, startedAt: t, restartCount: c.restartCount + restarts });
    this.emit("die", c);
  }

  // ---- Runtime ----

  async ping(): Promise<void> {}

  async listContainers(labelFilters: string[]): Promise<ManagedContainer[]> {
    return [...this.containers.values()].filter((c) => matches(c.labels, labelFilters)).map(snapshot);
  }

  async listContainersBrief(labelFilters: string[]): Promise<ContainerSummary[]> {
    return [...this.containers.values()].filter((c) => matches(c.labels, labelFilters)).map(summary);
  }

  async inspectContainer(nameOrId: string): Promise<ManagedContainer | null> {
    const c = this.get(nameOrId);
    return c ? snapshot(c) : null;
  }

  /** By reference, or by id as the engine also answers. */
  async imageId(ref: string): Promise<string | null> {
    return this.images.get(ref) ?? ([...this.images.values()].includes(ref) ? ref : null);
  }

  async pullImage(ref: string, auth: RegistryAuth | null, onProgress: (p: PullProgress) => void): Promise<void> {
    this.calls.push(`pull ${ref}`);
    this.pulls.push({ ref, auth });
    const err = this.nextPullError;
    this.nextPullError = null;
    if (err !== null) throw new Error(err);
    const access = await this.registryAccess(ref, auth);
    if (!access.ok) throw new Error(access.reason);
    const id = this.registry.get(ref)!;
    onProgress({ status: "Downloading", id: "layer", current: 1, total: 1 });
    this.images.set(ref, id);
    // The engine's RepoDigest: the reference's repository (no tag, no digest) at the manifest's digest.
    const repo = ref.split("@")[0]!.replace(/:[^/:]*$/, "");
    this.repoDigests.set(id, [`${repo}@sha256:${id.replace(/^sha256:/, "").padEnd(64, "0")}`]);
  }

  async listImages(): Promise<ImageInfo[]> {
    const byId = new Map<string, string[]>();
    for (const [ref, id] of this.images) byId.set(id, [...(byId.get(id) ?? []), ref]);
    return [...byId].map(([id, repoTags]) => ({ id, repoTags, size: this.imageSizes.get(id) ?? 0 }));
  }

  async containerImageIds(): Promise<Set<string>> {
    return new Set([...this.containers.values()].map((c) => (c.options.Image ? (this.images.get(c.options.Image) ?? c.options.Image) : "")));
  }

  async removeImage(nameOrId: string): Promise<ImageRemoval> {
    const byTag = this.images.has(nameOrId);
    const id = this.images.get(nameOrId) ?? nameOrId;
    const tags = [...this.images].filter(([, i]) => i === id).map(([ref]) => ref);
    if (tags.length === 0) return "gone";
    if (byTag && tags.length > 1) {
      this.images.delete(nameOrId);
      return "removed";
    }
    if (!byTag && tags.length > 1) return "conflict";
    if ((await this.containerImageIds()).has(id)) return "conflict";
    this.calls.push(`remove-image ${id}`);
    for (const t of tags) this.images.delete(t);
    return "removed";
  }

  async imageRepoDigests(idOrRef: string): Promise<string[] | null> {
    const id = this.images.get(idOrRef) ?? ([...this.images.values()].includes(idOrRef) ? idOrRef : null);
    return id === null ? null : (this.repoDigests.get(id) ?? []);
  }

  async imageCreated(idOrRef: string): Promise<Date | null> {
    const id = await this.imageId(idOrRef);
    return id === null ? null : imageBuildTime(this.imageLabels.get(id), this.imageTimes.get(id));
  }

  async imageOrigin(idOrRef: string): Promise<{ repoDigests: string[]; labels: Record<string, string> } | null> {
    const id = await this.imageId(idOrRef);
    return id === null ? null : { repoDigests: [...(this.repoDigests.get(id) ?? [])], labels: { ...this.imageLabels.get(id) } };
  }

  async tagImage(idOrRef: string, ref: string): Promise<void> {
    const id = await this.imageId(idOrRef);
    if (id === null) throw new Error(`No such image: ${idOrRef}`);
    this.images.set(ref, id);
  }

  async registryAccess(ref: string, auth: RegistryAuth | null): Promise<RegistryAccess> {
    if (!this.registry.has(ref)) return { ok: false, status: 404, reason: `manifest for ${ref} not found` };
    const password = this.logins.get(ref);
    if (password !== undefined && auth?.password !== password) return { ok: false, status: 401, reason: "unauthorized: authentication required" };
    return { ok: true };
  }

  /** A network by name or id, as the engine looks one up. */
  private network(nameOrId: string): FakeNetwork | undefined {
    return this.networks.get(nameOrId) ?? [...this.networks.values()].find((n) => n.id === nameOrId);
  }

  async inspectNetwork(nameOrId: string): Promise<NetworkInfo | null> {
    const n = this.network(nameOrId);
    return n ? networkInfo(n) : null;
  }

  async listNetworks(labelFilters: string[]): Promise<NetworkInfo[]> {
    return [...this.networks.values()].filter((n) => matches(n.labels, labelFilters)).map((n) => ({ ...networkInfo(n), containers: [] }));
  }

  async createNetwork(name: string, labels: Record<string, string>, subnet: string, gateway: string): Promise<boolean> {
    if (this.networks.has(name)) return false;
    this.calls.push(`create-network ${name}`);
    this.addNetwork({ name, labels, subnet, gateway });
    return true;
  }

  async connectNetwork(nameOrId: string, containerId: string, aliases: string[]): Promise<void> {
    const n = this.network(nameOrId);
    if (!n) throw Object.assign(new Error(`network ${nameOrId} not found`), { statusCode: 404 });
    const c = this.must(containerId);
    if (n.containers.includes(c.id)) return;
    n.containers.push(c.id);
    n.aliases[c.id] = [...aliases];
    c.addresses[n.name] = `${n.gateway.slice(0, n.gateway.lastIndexOf("."))}.${n.containers.length + 1}`;
  }

  async disconnectNetwork(nameOrId: string, containerId: string): Promise<void> {
    const n = this.network(nameOrId);
    if (n) n.containers = n.containers.filter((id) => id !== containerId);
    if (n) delete n.aliases[containerId];
    const c = this.containers.get(containerId);
    if (c && n) delete c.addresses[n.name];
  }

  async removeNetwork(nameOrId: string): Promise<void> {
    const n = this.network(nameOrId);
    if (n) this.networks.delete(n.name);
  }

  async createContainer(opts: Docker.ContainerCreateOptions): Promise<string | null> {
    const name = opts.name ?? `anon-${++this.seq}`;
    if (this.get(name)) return null;
    this.calls.push(`create ${name}`);
    const policy = opts.HostConfig?.RestartPolicy?.Name === "unless-stopped" ? "unless-stopped" : "no";
    const labels = { ...(opts.Image ? this.imageLabels.get(opts.Image) : undefined), ...(opts.Labels ?? {}) };
    return this.add({ name, labels, options: structuredClone(opts), restartPolicy: policy }).id;
  }

  async startContainer(id: string): Promise<void> {
    const c = this.must(id);
    this.calls.push(`start ${c.name}`);
    const err = this.nextStartError;
    this.nextStartError = null;
    if (err !== null) throw new Error(err);
    if (c.state === "running") return;
    const network = c.options.HostConfig?.NetworkMode;
    const net = network ? this.networks.get(network) : undefined;
    if (net && !c.addresses[net.name]) {
      c.addresses[net.name] = `${net.gateway.slice(0, net.gateway.lastIndexOf("."))}.${net.containers.length + 2}`;
      net.containers.push(c.id);
    }
    Object.assign(c, { state: "running", startedAt: this.now() });
    this.emit("start", c);
    const script = this.script(c);
    c.output += script.chunks.join("");
    if (script.exit !== "runs") this.exit(c.id, script.exit);
  }

  async stopContainer(id: string): Promise<void> {
    const c = this.get(id);
    if (!c) return;
    this.calls.push(`stop ${c.name}`);
    if (c.state === "running" || c.state === "restarting") this.exit(c.id, 143);
  }

  async removeContainer(id: string): Promise<void> {
    const c = this.get(id);
    if (!c) return;
    this.calls.push(`remove ${c.name}`);
    this.containers.delete(c.id);
    for (const n of this.networks.values()) n.containers = n.containers.filter((x) => x !== c.id);
    this.emit("destroy", c);
    this.wake(c.id, 137);
  }

  async followLogs(id: string, onChunk: (text: string) => void): Promise<void> {
    const c = this.must(id);
    if (c.output) onChunk(c.output);
    if (c.state !== "running") return;
    this.followers.set(c.id, [...(this.followers.get(c.id) ?? []), onChunk]);
    await new Promise<number>((resolve) => this.waitFor(c.id, resolve));
  }

  async waitExit(id: string): Promise<number> {
    const c = this.must(id);
    const err = this.nextWaitError;
    this.nextWaitError = null;
    if (err) throw err;
    if (c.state !== "running" && c.state !== "created") return c.exitCode ?? 0;
    return new Promise<number>((resolve) => this.waitFor(c.id, resolve));
  }

  async exec(id: string, argv: string[], onChunk: (text: string) => void, opts: { signal?: AbortSignal } = {}): Promise<{ exitCode: number }> {
    const c = this.must(id);
    this.calls.push(`exec ${c.name}`);
    const script = this.execScript(argv);
    for (const chunk of script.chunks) onChunk(chunk.toString());
    if (script.exit !== "runs") return { exitCode: script.exit };
    // It never ends by itself: only the container's end (removal), or its caller stopping it, ends it.
    const ended = new Promise<number>((resolve) => this.waitFor(c.id, resolve));
    return { exitCode: await (opts.signal ? Promise.race([ended, stopped(argv, opts.signal)]) : ended) };
  }

  async execStream(id: string, argv: string[], opts: ExecStreamOptions): Promise<OutputStream> {
    const c = this.must(id);
    this.calls.push(`exec ${c.name}`);
    const out = scriptedStream(opts.stdin, (stdin) => this.execScript(argv, stdin), () => new Promise<number>((resolve) => this.waitFor(c.id, resolve)));
    return opts.signal ? stoppable(out, argv, opts.signal) : out;
  }

  createVolume = (name: string, labels: Record<string, string>): Promise<VolumeInfo> => this.volumes.create(name, labels);
  inspectVolume = (name: string): Promise<VolumeInfo | null> => this.volumes.inspect(name);
  listVolumes = (labelFilters: string[]): Promise<VolumeInfo[]> => this.volumes.list(labelFilters);
  removeVolume = (name: string): Promise<void> => this.volumes.remove(name);

  /** Connects at once (`onConnected` runs in a microtask, as after the engine answered). */
  watchContainers(labelFilters: string[], onEvent: (e: ContainerEvent) => void, onConnected?: () => void): () => void {
    const w = { filters: labelFilters, onEvent, onConnected };
    this.watchers.add(w);
    queueMicrotask(() => {
      if (this.watchers.has(w)) onConnected?.();
    });
    return () => this.watchers.delete(w);
  }

  async setRestartPolicy(id: string, policy: "no" | "unless-stopped"): Promise<void> {
    const c = this.must(id);
    c.restartPolicy = policy;
    this.emit("update", c);
  }

  async containerEnv(id: string): Promise<Record<string, string>> {
    return envRecord(this.get(id)?.options.Env ?? []);
  }

  async containerLogs(id: string, tailLines: number): Promise<string> {
    const c = this.get(id);
    if (!c) return "";
    const lines = c.output.split(/(?<=\n)/);
    return lines.slice(-tailLines).join("");
  }

  async containerStats(id: string): Promise<ContainerStats | null> {
    const c = this.get(id);
    if (!c || c.state !== "running") return null;
    const limit = c.options.HostConfig?.Memory ?? 0;
    const zero = { containerNs: 0, systemNs: this.now() * 1e6, onlineCpus: 1 };
    return this.stats.get(c.id) ?? { cpu: zero, precpu: null, memoryBytes: 0, memoryLimitBytes: limit > 0 ? limit : null, netRxBytes: 0, netTxBytes: 0 };
  }

  private waitFor(id: string, w: Waiter) {
    this.waiters.set(id, [...(this.waiters.get(id) ?? []), w]);
  }
  private wake(id: string, code: number) {
    const ws = this.waiters.get(id) ?? [];
    this.waiters.delete(id);
    this.followers.delete(id);
    for (const w of ws) w(code);
  }
  private emit(action: string, c: FakeContainer) {
    if (this.dropEvents) return;
    for (const w of this.watchers) if (matches(c.labels, w.filters)) w.onEvent({ action, id: c.id, labels: { ...c.labels, name: c.name } });
  }
}

/** Whether a container made with these options mounts the named volume. */
function mounts(opts: Docker.ContainerCreateOptions, volume: string): boolean {
  return (opts.HostConfig?.Binds ?? []).some((b) => b.split(":")[0] === volume) || (opts.HostConfig?.Mounts ?? []).some((m) => m.Source === volume);
}
