// On a Docker Swarm (docs/operating/nodes-and-swarm.md): what kind of node this engine is, whether every node is ready,
// and whether the edge ingress runs here (without it the worker runs releases as containers on
// this engine only).
import type { OverlayIpsec } from "@levelrail/docker/swarm/ipsec";
import type { EngineKind, NodeView } from "@levelrail/docker/swarm/nodes";
import type { PinnedRow } from "./database";
import { type CheckResult, fail, ok, warn } from "./result";

export interface SwarmFacts {
  kind: EngineKind;
  /** The swarm's nodes (a manager's view; none on one engine or a worker). */
  nodes: Pick<NodeView, "id" | "hostname" | "name" | "address" | "role" | "state" | "availability">[];
  /** Whether the edge's holder and its Caddy run on this engine. */
  edge: { holder: boolean; caddy: boolean };
  /**
   * The node agents (`<short>-node-agent`, every other node's own edge): null when the service does
   * not exist; else this node's id, the nodes where an agent task runs, and those of them whose
   * agent has not read the edge feed in the last 15 s (their edge serves an old copy). Absent: not asked.
   */
  agents?: { self: string; runningOn: string[]; silent?: string[] } | null;
  /** Whether this kernel can encrypt overlays between the nodes (IPsec ESP; `@levelrail/docker/swarm/ipsec`). Absent: not asked. */
  ipsec?: OverlayIpsec;
}

/** `facts()` throws when the engine does not answer. */
export interface SwarmProbe {
  facts(): Promise<SwarmFacts>;
}

const nodeName = (n: SwarmFacts["nodes"][number]) => `${n.hostname || n.name} (${n.address})`;

/**
 * Pure: the `swarm` check from what the engine says (null: it did not answer). `pinned`: the managed
 * databases pinned to a node (from the control plane's database; null when it did not answer): those
 * on a drained or down node are stopped, and named.
 */
export function swarmCheck(f: SwarmFacts | null, names: { holder: string; caddy: string }, pinned: readonly PinnedRow[] | null = null): CheckResult {
  if (!f) return warn("swarm", "not checked: the Docker engine does not answer");
  if (f.kind === "single") return ok("swarm", "one engine (not in a swarm)", { engine: "single" });
  if (f.kind === "swarm-worker") {
    return fail("swarm", "this engine is a swarm worker: the panel drives the swarm from a manager; run it on a manager, or promote this node (`docker node promote <node>` on a manager)", { engine: "swarm-worker" });
  }
  const detail = { engine: "swarm-manager", nodes: f.nodes.length, edge: f.edge };
  const problems: string[] = [];
  if (!f.edge.holder || !f.edge.caddy) {
    const missing = [!f.edge.holder && names.holder, !f.edge.caddy && names.caddy].filter(Boolean).join(" and ");
    problems.push(`the edge ingress does not run here (${missing} not running): releases run as containers on this engine only; \`npm start\` makes it`);
  }
  const down = f.nodes.filter((n) => n.state !== "ready");
  if (down.length > 0) {
    problems.push(`${down.map(nodeName).join(", ")} ${down.length === 1 ? "is" : "are"} ${down.map((n) => n.state).filter((s, i, a) => a.indexOf(s) === i).join("/")}: ${down.length === 1 ? "its" : "their"} tasks run again on the other nodes; start ${down.length === 1 ? "its" : "their"} engine, or remove ${down.length === 1 ? "it" : "them"} (\`docker node rm <node>\`)`);
  }
  const others = f.nodes.filter((n) => n.state === "ready" && n.id !== f.agents?.self);
  if (f.agents === null && f.nodes.length > 1) {
    problems.push("the other nodes run no edge of their own, so only this node's Caddy serves the domains (and none while this engine restarts): set LEVELRAIL_SWARM_REGISTRY to the installation's registry and run `npm start` (README, Nodes)");
  } else if (f.agents) {
    const without = others.filter((n) => !f.agents!.runningOn.includes(n.id));
    if (without.length > 0) problems.push(`${without.map(nodeName).join(", ")} ${without.length === 1 ? "runs" : "run"} no node agent, so ${without.length === 1 ? "its" : "their"} Caddy may serve an old copy or nothing: see \`docker service ps <short>-node-agent\``);
    const silent = others.filter((n) => f.agents!.silent?.includes(n.id));
    if (silent.length > 0) problems.push(`the node agent on ${silent.map(nodeName).join(", ")} has not read the edge feed for 15 s, so ${silent.length === 1 ? "its" : "their"} Caddy serves an old copy: see \`docker service logs <short>-node-agent\` (the control overlay between the nodes, ports 7946 and 4789)`);
  }
  // Tenant traffic between nodes crosses the overlays: in clear where the kernel cannot encrypt them.
  const clear = f.ipsec && f.ipsec.supported !== true ? `app and database overlays are not encrypted between the nodes, so tenant traffic crosses the network in clear: ${f.ipsec.detail}` : null;
  if (clear && f.nodes.length > 1) problems.push(clear);
  for (const n of f.nodes.filter((x) => x.state !== "ready" || x.availability === "drain")) {
    const here = (pinned ?? []).filter((p) => p.nodeId === n.id).map((p) => p.database);
    if (here.length === 0) continue;
    const fix = n.state !== "ready" ? "start its engine" : "activate it on the Nodes page";
    problems.push(`${here.join(", ")} ${here.length === 1 ? "is" : "are"} stopped: pinned to ${nodeName(n)}, which is ${n.state !== "ready" ? n.state : "drained"}, with ${here.length === 1 ? "its" : "their"} data; ${fix}`);
  }
  if (problems.length > 0) return warn("swarm", problems.join("; "), detail);
  const managers = f.nodes.filter((n) => n.role === "manager").length;
  const drained = f.nodes.filter((n) => n.availability !== "active");
  const note = drained.length > 0 ? `; ${drained.map(nodeName).join(", ")} ${drained.length === 1 ? "takes" : "take"} no new tasks (${drained.map((n) => n.availability).join("/")})` : "";
  const everywhere = f.agents && others.length > 0 ? "; every other node runs its own edge" : "";
  const encryption = f.ipsec?.supported === true ? "; overlays between nodes are encrypted (IPsec)" : clear ? `; once another node joins, ${clear}` : "";
  return ok("swarm", `swarm manager of ${f.nodes.length} node${f.nodes.length === 1 ? "" : "s"} (${managers} manager${managers === 1 ? "" : "s"}), every one ready; the edge ingress runs here${everywhere}${note}${encryption}`, detail);
}
