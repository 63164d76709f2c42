// The nodes of an installation as the API shows them (`GET /api/v1/nodes`): from the engine's
// node objects (`docker node ls/inspect`) on a swarm, from `docker info` on one engine. Pure.

/** The fields of the Engine API's `Node` object that the view reads (all optional, as engines omit them). */
export interface EngineNode {
  ID: string;
  Spec?: { Role?: string; Availability?: string; Labels?: Record<string, string> | null; Name?: string };
  Description?: {
    Hostname?: string;
    Platform?: { Architecture?: string; OS?: string };
    Resources?: { NanoCPUs?: number; MemoryBytes?: number };
    Engine?: { EngineVersion?: string; Labels?: Record<string, string> | null };
  };
  Status?: { State?: string; Addr?: string; Message?: string };
  ManagerStatus?: { Leader?: boolean; Reachability?: string; Addr?: string };
}

export type NodeRole = "manager" | "worker";
export type NodeState = "ready" | "down" | "disconnected" | "unknown";
export type NodeAvailability = "active" | "pause" | "drain";

export interface NodeView {
  id: string;
  /** The node's name: its spec name when set, else its hostname. */
  name: string;
  hostname: string;
  role: NodeRole;
  /** Whether it leads the managers' raft (managers only; false for workers). */
  leader: boolean;
  /** A manager's reachability among the managers; null for a worker. */
  reachability: "reachable" | "unreachable" | "unknown" | null;
  state: NodeState;
  /** The engine's message for its state (`heartbeat failure`, …), "" when none. */
  message: string;
  availability: NodeAvailability;
  /** The node's address the other nodes reach it at (a manager's own, without the port, when the engine reports 0.0.0.0). */
  address: string;
  /** The operator's labels (placement constraints select on these). */
  labels: Record<string, string>;
  resources: { cpus: number; memoryBytes: number };
  platform: string;
  engineVersion: string;
}

const oneOf = <T extends string>(value: string | undefined, allowed: readonly T[], fallback: T): T =>
  (allowed as readonly string[]).includes(value ?? "") ? (value as T) : fallback;

/** The host part of `host:port` (IPv6 in brackets allowed). */
const hostOf = (addr: string): string => {
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(addr);
  if (bracket?.[1]) return bracket[1];
  const parts = addr.split(":");
  return parts.length === 2 ? (parts[0] ?? "") : addr;
};

/** One engine node as the API shows it. */
export function nodeView(n: EngineNode): NodeView {
  const role = oneOf<NodeRole>(n.Spec?.Role, ["manager", "worker"], "worker");
  const hostname = n.Description?.Hostname ?? "";
  // A manager's Status.Addr is 0.0.0.0 on some engines; its raft address says where it listens.
  const statusAddr = n.Status?.Addr ?? "";
  const address = statusAddr && statusAddr !== "0.0.0.0" ? statusAddr : hostOf(n.ManagerStatus?.Addr ?? "");
  const platform = [n.Description?.Platform?.OS, n.Description?.Platform?.Architecture].filter(Boolean).join("/");
  return {
    id: n.ID,
    name: n.Spec?.Name || hostname || n.ID,
    hostname,
    role,
    leader: role === "manager" && n.ManagerStatus?.Leader === true,
    reachability: role === "manager" ? oneOf<"reachable" | "unreachable" | "unknown">(n.ManagerStatus?.Reachability, ["reachable", "unreachable", "unknown"], "unknown") : null,
    state: oneOf<NodeState>(n.Status?.State, ["ready", "down", "disconnected", "unknown"], "unknown"),
    message: n.Status?.Message ?? "",
    availability: oneOf<NodeAvailability>(n.Spec?.Availability, ["active", "pause", "drain"], "active"),
    address,
    labels: { ...(n.Spec?.Labels ?? {}) },
    resources: { cpus: (n.Description?.Resources?.NanoCPUs ?? 0) / 1e9, memoryBytes: n.Description?.Resources?.MemoryBytes ?? 0 },
    platform,
    engineVersion: n.Description?.Engine?.EngineVersion ?? "",
  };
}

/** Managers first (the leader first of them), then by name, then by id: a stable order for the API and the UI. */
export function sortNodes(nodes: readonly NodeView[]): NodeView[] {
  const rank = (n: NodeView) => (n.leader ? 0 : n.role === "manager" ? 1 : 2);
  return [...nodes].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** The fields of the Engine API's `GET /info` that tell one engine from a swarm manager and describe it. */
export interface EngineInfo {
  ID?: string;
  Name?: string;
  NCPU?: number;
  MemTotal?: number;
  ServerVersion?: string;
  OSType?: string;
  Architecture?: string;
  Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean; NodeID?: string };
}

/** What kind of engine an installation drives: a swarm manager, a swarm worker (which cannot manage services), or one engine. */
export type EngineKind = "swarm-manager" | "swarm-worker" | "single";

export function engineKind(info: EngineInfo): EngineKind {
  if (info.Swarm?.LocalNodeState !== "active") return "single";
  return info.Swarm.ControlAvailable ? "swarm-manager" : "swarm-worker";
}

/** `GET /api/v1/nodes`: one engine answers itself as its one node; a swarm its node list. */
export interface NodesView {
  engine: "single" | "swarm";
  nodes: NodeView[];
}

/** One engine (no swarm) as a node: always a ready, active manager of itself. */
export function singleEngineNode(info: EngineInfo): NodeView {
  return {
    id: info.ID ?? "",
    name: info.Name ?? "",
    hostname: info.Name ?? "",
    role: "manager",
    leader: true,
    reachability: null,
    state: "ready",
    message: "",
    availability: "active",
    address: "",
    labels: {},
    resources: { cpus: info.NCPU ?? 0, memoryBytes: info.MemTotal ?? 0 },
    platform: [info.OSType, info.Architecture].filter(Boolean).join("/"),
    engineVersion: info.ServerVersion ?? "",
  };
}

/** The API's answer from the engine's info and, on a swarm manager, its node list. */
export function nodesView(info: EngineInfo, swarmNodes: readonly EngineNode[] | null): NodesView {
  if (engineKind(info) === "swarm-manager" && swarmNodes) return { engine: "swarm", nodes: sortNodes(swarmNodes.map(nodeView)) };
  return { engine: "single", nodes: [singleEngineNode(info)] };
}
