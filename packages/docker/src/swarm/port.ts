import type { RegistryAuth } from "../ports";
import type { EngineKind, NodeAvailability, NodeView } from "./nodes";

// The calls a controller makes on a Docker Swarm, as one narrow port beside `Runtime` (which it
// leaves as it is): the swarm's own objects (nodes, services, tasks, overlay networks, secrets).
// Argument arrays and JSON only; every object carries the labels its caller passes (the product's
// own, `@levelrail/spec/naming`), and changes or removals go by id after the caller checked them.

export interface SwarmInfo {
  kind: EngineKind;
  /** This engine's node id on a swarm, else null. */
  nodeId: string | null;
  /** This engine's name (its host's name, as the Nodes page shows it). */
  name: string;
}

export interface NodeChange {
  availability?: NodeAvailability;
  /** Replaces the node's labels whole. */
  labels?: Record<string, string>;
}

/** A secret as a service's tasks see it: a file under `/run/secrets/<file>`, never an env value. */
export interface SecretMount {
  secretId: string;
  secretName: string;
  /** The file name under /run/secrets. */
  file: string;
  /** File mode (default 0o400). */
  mode?: number;
}

/** What a release needs of a swarm service. */
export interface SwarmServiceSpec {
  name: string;
  image: string;
  /** Replicated mode's count (a job runs one task to completion whatever it says). */
  replicas: number;
  /** `job`: one task that runs once (the engine's `ReplicatedJob`, never restarted); unset: a replicated service. */
  mode?: "replicated" | "job";
  /** The service's labels (what the product finds it by). */
  labels: Record<string, string>;
  /** Each task container's labels (set explicitly, as for a container on one engine). */
  containerLabels: Record<string, string>;
  env: Record<string, string>;
  /** Overrides the image's entrypoint (argv; the engine's `Command`); with it, the image's command is dropped and `command` alone follows. */
  entrypoint?: readonly string[];
  /** Overrides the image's command (argv; no shell; the engine's `Args`). */
  command?: readonly string[];
  /** Overlay networks by name or id, each with the aliases the service is known by there. */
  networks: readonly { target: string; aliases: readonly string[] }[];
  /** Placement constraints (`node.labels.zone==a`, `node.role==worker`). */
  constraints: readonly string[];
  /** Spread the replicas evenly over the values of these node labels (`node.labels.zone`). */
  spreadOver?: readonly string[];
  /** At most this many of its tasks on one node (0 or unset: no limit). */
  maxReplicasPerNode?: number;
  secrets: readonly SecretMount[];
  /** What each task's container may use (as a container's limits on one engine); unset: none. */
  limits?: { memoryBytes: number | null; nanoCpus: number | null; pids: number };
  /** Each task's capabilities: `drop` (`ALL`) then `add`; unset: the engine's default set. */
  capabilities?: { add: readonly string[]; drop: readonly string[] };
  /** Each task's resolver (`/etc/resolv.conf`): nameservers, search domains, options; unset: the engine's. */
  dns?: { nameservers: readonly string[]; search: readonly string[]; options: readonly string[] };
  /** How long a task's container gets between SIGTERM and SIGKILL (unset: the engine's 10 s). */
  stopGraceSeconds?: number;
  /**
   * Named volumes mounted into each task, made by the engine of the node the task runs on (with
   * these labels) when that node has none of the name: a task pinned to one node keeps its data there.
   */
  mounts?: readonly { source: string; target: string; labels: Record<string, string> }[];
  /** How a change rolls out: the new task first (blue-green) or the old one stopped first. */
  updateOrder: "start-first" | "stop-first";
  /**
   * How its name resolves on its networks: `dnsrr`, to the addresses of its running tasks; `vip`, to
   * one virtual address the engine balances with IPVS (which needs the engine's iptables rules).
   */
  endpointMode: "vip" | "dnsrr";
  /** Sent as the registry login with the create or update, so every node can pull (`--with-registry-auth`). */
  registryAuth?: RegistryAuth | null;
}

export interface SwarmServiceInfo {
  id: string;
  name: string;
  /** The engine's object version: an update names the version it read (optimistic concurrency). */
  version: number;
  labels: Record<string, string>;
  image: string;
  replicas: number;
  constraints: string[];
  /** References only: the engine never shows a secret's value. */
  secrets: { secretId: string; secretName: string; file: string }[];
  /** Network ids. */
  networks: string[];
  /** The engine's state of its last rollout (`updating`, `completed`, `paused`, `rollback_completed`, …), null when none ran. */
  updateState: string | null;
  /** When the engine created it (ms since epoch; 0 when it did not say). */
  createdAt: number;
}

export interface SwarmTask {
  id: string;
  serviceId: string;
  /** Null until the scheduler placed it. */
  nodeId: string | null;
  slot: number | null;
  /** The image its spec names (as the service's spec named it when the task was made). */
  image: string;
  desiredState: string;
  /** `new`, `pending`, `assigned`, `preparing`, `starting`, `running`, `complete`, `failed`, `rejected`, `shutdown`, … */
  state: string;
  /** Running (after its health check passed, if the image has one): the engine marks a task running only then. */
  ready: boolean;
  message: string;
  error: string;
  containerId: string | null;
  /** Its container's exit code once it ended (null before, or when it never started). */
  exitCode: number | null;
  /** Its addresses (without prefix length) by network id. */
  addresses: Record<string, string>;
  /** Milliseconds since epoch of its last state change. */
  updatedAt: number;
}

export interface OverlayNetworkSpec {
  name: string;
  labels: Record<string, string>;
  /** A fixed subnet from the installation's pool; null: the swarm's default address pool picks one. */
  subnet: string | null;
  gateway: string | null;
  /** IPsec between nodes (the engine's `encrypted` option). */
  encrypted: boolean;
  /** `com.docker.network.driver.mtu`; null: the engine's default (1450 on 1500-byte links). */
  mtu: number | null;
}

export interface ImageProcess {
  entrypoint: string[];
  cmd: string[];
}

export interface SwarmSecretInfo {
  id: string;
  name: string;
  labels: Record<string, string>;
}

export interface SwarmPort {
  /** Whether this engine is a swarm manager (the only kind that can drive services). */
  swarmInfo(): Promise<SwarmInfo>;
  listNodes(): Promise<NodeView[]>;
  /** Changes a node's availability and/or labels (reads its version, updates that version). */
  updateNode(id: string, change: NodeChange): Promise<void>;
  /**
   * The reference with the digest its registry has for it now (`name:tag@sha256:…`, as `docker service
   * create` pins it): every node then runs the same bits, whatever the tag points at later. The
   * reference itself when it names a digest already; null when no registry answers for it (an
   * image only this engine has: the swarm's other nodes cannot pull it either).
   */
  resolveImage(ref: string, auth: RegistryAuth | null): Promise<string | null>;
  /**
   * What the image runs (its entrypoint and command), from this engine's copy, pulled with `auth`
   * first when it has none. Null when neither this engine nor a registry has it.
   */
  imageProcess(ref: string, auth: RegistryAuth | null): Promise<ImageProcess | null>;
  /** Creates the service; resolves to its id, or null when the name is taken. */
  createService(spec: SwarmServiceSpec): Promise<string | null>;
  /** By name or id; null when there is none. */
  inspectService(nameOrId: string): Promise<SwarmServiceInfo | null>;
  /** Every service matching the label filters (all for `[]`). */
  listServices(labelFilters: string[]): Promise<SwarmServiceInfo[]>;
  /** Replaces the service's spec (at `version`, from its inspect: a stale version is the engine's refusal). */
  updateService(id: string, version: number, spec: SwarmServiceSpec): Promise<void>;
  /** One that is already gone is not an error. */
  removeService(id: string): Promise<void>;
  /** The service's tasks' output (stdout and stderr, in the order the engine gives it), its last `tailLines` lines; "" when it is gone. */
  serviceLogs(id: string, tailLines: number): Promise<string>;
  /** The tasks of one service (by id), in every state. */
  listTasks(serviceId: string): Promise<SwarmTask[]>;
  /** Every task the swarm means to run (desired state `running`), of every service: one call. */
  listRunningTasks(): Promise<SwarmTask[]>;
  /** An attachable overlay network; resolves to false when the name is taken. */
  createOverlayNetwork(spec: OverlayNetworkSpec): Promise<boolean>;
  /** Creates a secret from `value`; resolves to its id. A taken name is the engine's 409, thrown: secrets are immutable, name a new one. */
  createSecret(name: string, labels: Record<string, string>, value: string | Buffer): Promise<string>;
  listSecrets(labelFilters: string[]): Promise<SwarmSecretInfo[]>;
  /** One that is already gone is not an error; one a service uses is (the engine refuses). */
  removeSecret(id: string): Promise<void>;
}
