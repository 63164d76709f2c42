import type { Ctx } from "@levelrail/services/context";
import { listNodes } from "@levelrail/services/node/list";
import { LevelrailError } from "@levelrail/spec/errors";
import { RESERVED_NODE_LABEL_PREFIX } from "@levelrail/spec/nodes";
import { Alert } from "@/components/alert";
import { type NodeCardData, type NodeItem, NodesList } from "@/components/nodes-list";
import { NodesRefresh } from "@/components/nodes-refresh";
import { nodesReader } from "@/lib/nodes";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Nodes · Levelrail" };

type Loaded = { view: { engine: "single" | "swarm"; nodes: NodeItem[] } } | { error: string };

/** The nodes through the same verb as `GET /api/v1/nodes`: its refusal (a 403 for a role on one project only) is the page's error. */
async function load(ctx: Ctx): Promise<Loaded> {
  try {
    return { view: await listNodes({ ctx, reader: nodesReader() }) };
  } catch (err) {
    if (err instanceof LevelrailError) return { error: err.message };
    // As the API answers an unexpected failure (lib/api.ts): the details go to the server log only.
    console.error("nodes page: reading the nodes failed", err);
    return { error: "could not read the nodes from the Docker engine; the server log has the details" };
  }
}

/**
 * The installation's nodes (every member of a whole organization reads them; an installation
 * administrator alone gets the controls that change them): read-only facts rendered
 * here on the server, the controls that change a node a small client component. A swarm's page is
 * re-rendered on a timer (NodesRefresh) so a pending change is seen to land.
 */
export default async function NodesPage() {
  const ctx = await requireCtx();
  const loaded = await load(ctx);
  if ("error" in loaded) {
    return (
      <>
        <h1>Nodes</h1>
        <Alert error={loaded.error} />
      </>
    );
  }
  const { engine, nodes } = loaded.view;
  const cards: NodeCardData[] = nodes.map((node) => ({
    node,
    operatorLabels: Object.fromEntries(Object.entries(node.labels).filter(([k]) => !k.toLowerCase().startsWith(RESERVED_NODE_LABEL_PREFIX))),
  }));
  return (
    <>
      <h1>Nodes</h1>
      <NodesList engine={engine} nodes={cards} mayChange={ctx.actor.installationAdmin === true} />
      {/* One engine answers itself, always ready, and takes no change: nothing to follow. */}
      {engine === "swarm" && <NodesRefresh pending={nodes.some((n) => n.change?.state === "pending")} />}
    </>
  );
}
