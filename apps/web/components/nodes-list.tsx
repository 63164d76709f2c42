import type { NodeView } from "@levelrail/docker/nodes-read";
import type { NodeChangeView } from "@levelrail/spec/nodes";
import { NodeControls } from "./nodes-controls";
import { Timestamp } from "./timestamp";

/** A node as `GET /api/v1/nodes` answers it: what the engine reports, and the change last asked of it. */
export type NodeItem = NodeView & { change: NodeChangeView | null; databases?: { name: string; environmentId: string }[] };

/** One node on the page; `operatorLabels` are its labels less the product's own (what the label editor edits). */
export interface NodeCardData {
  node: NodeItem;
  operatorLabels: Record<string, string>;
}

const GIB = 1024 ** 3;
const memoryText = (bytes: number) => `${(bytes / GIB).toFixed(1)} GiB`;
const cpusText = (cpus: number) => `${Number.isInteger(cpus) ? cpus : cpus.toFixed(2)} CPU${cpus === 1 ? "" : "s"}`;
const labelsText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");

const STATE_CLASS: Partial<Record<NodeView["state"], string>> = { ready: "phase-running", down: "phase-failed", disconnected: "phase-failed" };

function roleText(n: NodeView): string {
  if (n.role === "worker") return "worker";
  const parts = ["manager", n.leader ? "leader" : null, !n.leader && n.reachability ? n.reachability : null];
  return parts.filter(Boolean).join(", ");
}

/** What the worker is doing while a change is pending, in the words an operator expects. */
function progressText(c: NodeChangeView): string {
  const verb = c.availability === "drain" ? "draining" : c.availability === "pause" ? "pausing" : c.availability === "active" ? "activating" : null;
  if (verb && c.labels !== null) return `${verb} and setting labels…`;
  return verb ? `${verb}…` : "setting labels…";
}

function askedText(c: NodeChangeView): string {
  const parts: string[] = [];
  if (c.availability !== null) parts.push(c.availability);
  if (c.labels !== null) parts.push(Object.keys(c.labels).length ? `labels ${labelsText(c.labels)}` : "no labels");
  return parts.join("; ");
}

/** The change last asked of a node and where it stands: pending (what is under way), applied, or failed with the swarm's reason. */
function ChangeStatus({ change }: { change: NodeChangeView }) {
  const badge = { pending: "phase-pending", applied: "phase-running", failed: "phase-failed" }[change.state];
  return (
    <span data-testid="node-change">
      <span className={`badge ${badge}`}>{change.state}</span>
      {change.state === "pending" && ` ${progressText(change)}`}
      {change.state === "failed" && `: ${change.error ?? "the swarm refused it"}`}
      <span className="muted">
        {" "}
        — {askedText(change)}, asked <Timestamp iso={change.requestedAt} />
        {change.requestedBy ? ` by ${change.requestedBy}` : ""}
      </span>
    </span>
  );
}

/** One node: its facts, the change last asked of it and, on a swarm, the controls that ask another. */
function NodeCard({ node, operatorLabels, swarm, mayChange }: NodeCardData & { swarm: boolean; mayChange: boolean }) {
  const titleId = `node-${node.id}-title`;
  const labels = labelsText(node.labels);
  return (
    <section className="card stack" aria-labelledby={titleId}>
      <h2 id={titleId}>{node.name}</h2>
      <dl className="facts">
        <dt>Hostname</dt>
        <dd>{node.hostname || "—"}</dd>
        <dt>Role</dt>
        <dd>{roleText(node)}</dd>
        <dt>State</dt>
        <dd>
          <span className={`badge ${STATE_CLASS[node.state] ?? ""}`}>{node.state}</span>
          {node.message && <span className="muted"> {node.message}</span>}
        </dd>
        <dt>Availability</dt>
        <dd>{node.availability}</dd>
        <dt>Address</dt>
        <dd className="mono">{node.address || "—"}</dd>
        <dt>Labels</dt>
        <dd className={labels ? "mono" : "muted"}>{labels || "none"}</dd>
        <dt>Resources</dt>
        <dd>
          {cpusText(node.resources.cpus)}, {memoryText(node.resources.memoryBytes)}
        </dd>
        <dt>Engine</dt>
        <dd>
          Docker {node.engineVersion || "(version unknown)"}
          {node.platform && <span className="muted"> on {node.platform}</span>}
        </dd>
        {node.databases && node.databases.length > 0 && (
          <>
            <dt>Databases here</dt>
            <dd data-testid="node-databases">
              <span className="mono">{node.databases.map((d) => d.name).join(", ")}</span>
              <span className="muted"> — their data is on this node: draining it stops them</span>
            </dd>
          </>
        )}
        {node.change && (
          <>
            <dt>Last change</dt>
            <dd>
              <ChangeStatus change={node.change} />
            </dd>
          </>
        )}
      </dl>
      {swarm && mayChange && (
        <NodeControls
          id={node.id}
          name={node.name}
          availability={node.availability}
          asking={node.change?.state === "pending" ? node.change.availability : null}
          labels={node.change && node.change.state !== "applied" && node.change.labels !== null ? node.change.labels : operatorLabels}
          databases={(node.databases ?? []).map((d) => d.name)}
        />
      )}
    </section>
  );
}

/**
 * The installation's nodes, rendered on the server. On one engine the page shows that engine and says
 * why there is nothing to change: draining, pausing and labels are a swarm's (the API answers 409).
 * `mayChange`: the caller is an installation administrator, the only one the API lets change a node;
 * everyone else reads the nodes without controls, told who may.
 */
export function NodesList({ engine, nodes, mayChange }: { engine: "single" | "swarm"; nodes: NodeCardData[]; mayChange: boolean }) {
  const swarm = engine === "swarm";
  return (
    <>
      {swarm ? (
        <p className="muted">
          The nodes of this installation&apos;s Docker Swarm. Drain a node to move its containers to the others (before maintenance or
          removal); pause one to keep what it runs but place nothing new on it; activate it to take work again. Labels are what
          placement constraints select on; saving them replaces the node&apos;s labels (the product&apos;s own <code>levelrail.*</code>{" "}
          are kept). The worker applies each change to the swarm; its state below follows.
        </p>
      ) : (
        <p data-testid="single-engine-note">
          This installation runs on a single Docker engine, shown below. Draining, pausing and node labels need a Docker Swarm: with one
          engine there is no other node to move containers to or place them on.
        </p>
      )}
      {swarm && !mayChange && (
        <p className="muted" data-testid="installation-admin-note">
          Only an installation administrator changes the nodes (they are every organization&apos;s); an operator grants it on the host
          with <code>levelrail admin grant --email E</code>.
        </p>
      )}
      {nodes.map((n) => (
        <NodeCard key={n.node.id} {...n} swarm={swarm} mayChange={mayChange} />
      ))}
    </>
  );
}
