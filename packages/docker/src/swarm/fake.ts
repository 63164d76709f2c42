import type { NodeView } from "./nodes";
import type { ImageProcess, NodeChange, OverlayNetworkSpec, SwarmInfo, SwarmPort, SwarmSecretInfo, SwarmServiceInfo, SwarmServiceSpec, SwarmTask } from "./port";

// A stateful fake of the swarm port for unit tests of what drives it, like `FakeEngine` for the
// Runtime: a test asserts what exists afterwards (services, where their tasks run, networks,
// secrets), not the calls. The scheduler is a small model of the engine's: replicas go to ready,
// active nodes that match every constraint, fewest tasks first, at most `maxReplicasPerNode`; one
// that fits nowhere stays pending with the engine's message. Tasks run (and are ready) at once.

const matchesLabels = (labels: Record<string, string>, filters: string[]) =>
  filters.every((f) => {
    const eq = f.indexOf("=");
    return eq < 0 ? f in labels : labels[f.slice(0, eq)] === f.slice(eq + 1);
  });

/** Whether `node` satisfies one placement constraint (`node.labels.k==v`, `node.role!=manager`, `node.id==…`, `node.hostname==…`). */
export function satisfies(node: NodeView, constraint: string): boolean {
  const m = /^\s*([\w.-]+)\s*(==|!=)\s*(.*?)\s*$/.exec(constraint);
  if (!m) throw new Error(`invalid constraint: ${constraint}`);
  const [, key = "", op, want] = m;
  const actual = key.startsWith("node.labels.")
    ? node.labels[key.slice("node.labels.".length)]
    : ({ "node.role": node.role, "node.id": node.id, "node.hostname": node.hostname } as Record<string, string | undefined>)[key];
  if (actual === undefined && !key.startsWith("node.labels.") && !["node.role", "node.id", "node.hostname"].includes(key)) throw new Error(`unsupported constraint key: ${key}`);
  return op === "==" ? actual === want : actual !== want;
}

interface FakeService {
  id: string;
  version: number;
  createdAt: number;
  spec: SwarmServiceSpec;
}

export class FakeSwarm implements SwarmPort {
  info: SwarmInfo = { kind: "swarm-manager", nodeId: null, name: "fake" };
  readonly nodes = new Map<string, NodeView>();
  readonly services = new Map<string, FakeService>();
  readonly tasks = new Map<string, SwarmTask>();
  readonly networks = new Map<string, OverlayNetworkSpec & { id: string }>();
  readonly secrets = new Map<string, SwarmSecretInfo & { value: Buffer }>();
  /** What the registry holds: a reference → its digest now (`resolveImage`); one not here is an image no registry has. */
  readonly registry = new Map<string, string>();
  /** What each image runs (`imageProcess`), by reference (a pinned one is found by its name:tag too); one not here is an image nobody has. */
  readonly images = new Map<string, ImageProcess>();
  /** How a job's one task ends (its exit code and output); default: 0 and nothing printed. */
  jobOutcome: (spec: SwarmServiceSpec) => { exitCode: number; output: string } = () => ({ exitCode: 0, output: "" });
  private readonly output = new Map<string, string>();
  private seq = 0;
  private readonly id = (prefix: string) => `${prefix}${++this.seq}`;

  /** Adds a ready, active node (a manager unless said otherwise); answers its id. */
  addNode(n: Partial<NodeView> & { address: string }): string {
    const id = n.id ?? this.id("node");
    this.nodes.set(id, {
      id, name: n.name ?? id, hostname: n.hostname ?? id, role: n.role ?? "manager", leader: n.leader ?? false, reachability: null,
      state: n.state ?? "ready", message: "", availability: n.availability ?? "active", labels: { ...(n.labels ?? {}) },
      resources: n.resources ?? { cpus: 2, memoryBytes: 2 ** 31 }, platform: "linux/x86_64", engineVersion: "fake", address: n.address,
    });
    this.schedule();
    return id;
  }

  /** A node is lost (`down`) or back (`ready`): its tasks go, and run again elsewhere. */
  setNodeState(id: string, state: NodeView["state"]): void {
    const node = this.nodes.get(id);
    if (!node) throw new Error(`no such node: ${id}`);
    node.state = state;
    this.schedule();
  }

  async swarmInfo() {
    return { ...this.info };
  }
  async listNodes() {
    return [...this.nodes.values()].map((n) => ({ ...n, labels: { ...n.labels } }));
  }
  async updateNode(id: string, change: NodeChange) {
    const node = this.nodes.get(id);
    if (!node) throw Object.assign(new Error(`no such node: ${id}`), { statusCode: 404 });
    if (change.availability) node.availability = change.availability;
    if (change.labels) node.labels = { ...change.labels };
    this.schedule();
  }

  private find(nameOrId: string): FakeService | undefined {
    return this.services.get(nameOrId) ?? [...this.services.values()].find((s) => s.spec.name === nameOrId);
  }
  private view(s: FakeService): SwarmServiceInfo {
    return {
      id: s.id, name: s.spec.name, version: s.version, labels: { ...s.spec.labels }, image: s.spec.image, replicas: s.spec.replicas,
      constraints: [...s.spec.constraints], secrets: s.spec.secrets.map((x) => ({ secretId: x.secretId, secretName: x.secretName, file: x.file })),
      networks: s.spec.networks.map((n) => this.networks.get(n.target)?.id ?? n.target), updateState: s.version > 1 ? "completed" : null, createdAt: s.createdAt,
    };
  }
  private checkRefs(spec: SwarmServiceSpec) {
    for (const n of spec.networks) if (![...this.networks.values()].some((x) => x.name === n.target || x.id === n.target)) throw new Error(`network ${n.target} not found`);
    for (const s of spec.secrets) if (!this.secrets.has(s.secretId)) throw new Error(`secret not found: ${s.secretId}`);
  }

  async resolveImage(ref: string) {
    if (/@sha256:[0-9a-f]{64}$/.test(ref)) return ref;
    const digest = this.registry.get(ref);
    return digest ? `${ref}@${digest}` : null;
  }
  async imageProcess(ref: string) {
    const p = this.images.get(ref) ?? this.images.get(ref.replace(/@sha256:[0-9a-f]{64}$/, ""));
    return p ? { entrypoint: [...p.entrypoint], cmd: [...p.cmd] } : null;
  }
  async createService(spec: SwarmServiceSpec) {
    if (this.find(spec.name)) return null;
    this.checkRefs(spec);
    const s: FakeService = { id: this.id("svc"), version: 1, createdAt: Date.now(), spec: structuredClone(spec) };
    this.services.set(s.id, s);
    if (spec.mode === "job") this.runJob(s);
    else this.schedule();
    return s.id;
  }
  async inspectService(nameOrId: string) {
    const s = this.find(nameOrId);
    return s ? this.view(s) : null;
  }
  async listServices(labelFilters: string[]) {
    return [...this.services.values()].filter((s) => matchesLabels(s.spec.labels, labelFilters)).map((s) => this.view(s));
  }
  async updateService(id: string, version: number, spec: SwarmServiceSpec) {
    const s = this.services.get(id);
    if (!s) throw Object.assign(new Error(`service ${id} not found`), { statusCode: 404 });
    if (version !== s.version) throw Object.assign(new Error("update out of sequence"), { statusCode: 500 });
    this.checkRefs(spec);
    const changed = JSON.stringify(spec) !== JSON.stringify(s.spec);
    s.spec = structuredClone(spec);
    s.version++;
    // A changed spec replaces every task (the engine's rolling update, here at once).
    if (changed) for (const t of this.tasks.values()) if (t.serviceId === id && t.desiredState === "running") this.shutdown(t);
    this.schedule();
  }
  async removeService(id: string) {
    const s = this.find(id);
    if (!s) return;
    this.services.delete(s.id);
    for (const [tid, t] of this.tasks) if (t.serviceId === s.id) this.tasks.delete(tid);
  }
  async listRunningTasks() {
    return [...this.tasks.values()].filter((t) => t.desiredState === "running").map((t) => ({ ...t, addresses: { ...t.addresses } }));
  }
  async serviceLogs(id: string) {
    return this.output.get(this.find(id)?.id ?? "") ?? "";
  }
  /** A job's one task, run at once on the first fitting node: complete or failed, as `jobOutcome` says. */
  private runJob(s: FakeService) {
    const node = [...this.nodes.values()].find((n) => n.state === "ready" && n.availability === "active" && s.spec.constraints.every((c) => satisfies(n, c)));
    const { exitCode, output } = node ? this.jobOutcome(s.spec) : { exitCode: -1, output: "" };
    this.output.set(s.id, output);
    const state = !node ? "pending" : exitCode === 0 ? "complete" : "failed";
    const id = this.id("task");
    this.tasks.set(id, {
      id, serviceId: s.id, nodeId: node?.id ?? null, slot: 1, image: s.spec.image, desiredState: node ? "complete" : "running", state, ready: false,
      message: node ? "finished" : "no suitable node", error: exitCode > 0 ? `task: non-zero exit (${exitCode})` : "", containerId: node ? this.id("ctr") : null,
      exitCode: node ? exitCode : null, addresses: {}, updatedAt: Date.now(),
    });
  }
  async listTasks(serviceId: string) {
    return [...this.tasks.values()].filter((t) => t.serviceId === serviceId).map((t) => ({ ...t, addresses: { ...t.addresses } }));
  }

  async createOverlayNetwork(spec: OverlayNetworkSpec) {
    if (this.networks.has(spec.name)) return false;
    this.networks.set(spec.name, { ...structuredClone(spec), id: this.id("net") });
    return true;
  }
  async createSecret(name: string, labels: Record<string, string>, value: string | Buffer) {
    if ([...this.secrets.values()].some((s) => s.name === name)) throw Object.assign(new Error(`secret ${name} already exists`), { statusCode: 409 });
    const id = this.id("secret");
    this.secrets.set(id, { id, name, labels: { ...labels }, value: Buffer.from(value) });
    return id;
  }
  async listSecrets(labelFilters: string[]) {
    return [...this.secrets.values()].filter((s) => matchesLabels(s.labels, labelFilters)).map(({ id, name, labels }) => ({ id, name, labels: { ...labels } }));
  }
  async removeSecret(id: string) {
    const user = [...this.services.values()].find((s) => s.spec.secrets.some((x) => x.secretId === id));
    if (user) throw Object.assign(new Error(`secret ${id} is in use by service ${user.spec.name}`), { statusCode: 400 });
    this.secrets.delete(id);
  }

  private shutdown(t: SwarmTask) {
    t.desiredState = "shutdown";
    t.state = "shutdown";
    t.ready = false;
  }

  /** Converges every service's tasks: ends those on unfit nodes, places the missing ones. */
  /** A placed task's address on each of its service's networks (by network id, as the engine keys them). */
  private addressesOf(spec: SwarmServiceSpec): Record<string, string> {
    const n = ++this.seq;
    return Object.fromEntries(spec.networks.map((x, i) => [this.networks.get(x.target)?.id ?? x.target, `10.${200 + i}.${Math.floor(n / 250)}.${(n % 250) + 2}`]));
  }

  private schedule(): void {
    const nodes = [...this.nodes.values()];
    for (const s of this.services.values()) {
      if (s.spec.mode === "job") continue;
      const fits = (n: NodeView) => n.state === "ready" && n.availability === "active" && s.spec.constraints.every((c) => satisfies(n, c));
      const live = () => [...this.tasks.values()].filter((t) => t.serviceId === s.id && t.desiredState === "running");
      for (const t of live()) {
        const node = t.nodeId ? this.nodes.get(t.nodeId) : undefined;
        if (t.nodeId && (!node || !fits(node))) this.shutdown(t);
      }
      for (const t of live()) if (t.nodeId === null) this.tasks.delete(t.id);
      let running = live();
      for (const t of running.slice(s.spec.replicas)) this.shutdown(t);
      running = live();
      const slots = new Set(running.map((t) => t.slot));
      for (let slot = 1; running.length < s.spec.replicas && slot <= s.spec.replicas; slot++) {
        if (slots.has(slot)) continue;
        const count = (n: NodeView) => running.filter((t) => t.nodeId === n.id).length;
        const max = s.spec.maxReplicasPerNode || Infinity;
        const node = nodes.filter((n) => fits(n) && count(n) < max).sort((a, b) => count(a) - count(b) || a.id.localeCompare(b.id))[0];
        const t: SwarmTask = {
          id: this.id("task"), serviceId: s.id, nodeId: node?.id ?? null, slot, image: s.spec.image, desiredState: "running",
          state: node ? "running" : "pending", ready: Boolean(node), message: node ? "started" : "no suitable node", error: "",
          containerId: node ? this.id("ctr") : null, exitCode: null, addresses: node ? this.addressesOf(s.spec) : {}, updatedAt: Date.now(),
        };
        this.tasks.set(t.id, t);
        running.push(t);
      }
    }
  }
}
