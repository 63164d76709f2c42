import type { SwarmPort } from "@levelrail/docker/swarm";
import type { Controller } from "../../reconcile/controller";
import { describe } from "../../describe";
import { type DesiredNodeChange, planNodes } from "./plan";

export interface NodeChangeStore {
  /** Every node's asked-for change. */
  changes(): Promise<DesiredNodeChange[]>;
  /** Records `generation` applied (and clears the error), only while it is still the node's newest request. */
  applied(nodeId: string, generation: number): Promise<void>;
  /** Records why `generation` could not be applied, only while it is still the node's newest request. */
  failed(nodeId: string, generation: number, error: string): Promise<void>;
}

export interface NodesControllerOptions {
  swarm: SwarmPort;
  store: NodeChangeStore;
  log: (line: string) => void;
}

/**
 * Whole-installation (key `nodes`): every node as operators asked (availability and labels,
 * `PATCH /api/v1/nodes/{id}`), observed from the swarm manager every pass and kept so on every
 * resync. An engine refusal of one node is recorded on that node's request and does not stop the
 * others; the pass then throws so the runner retries with backoff.
 */
export function nodesController(o: NodesControllerOptions): Controller {
  return {
    name: "nodes",
    async reconcile() {
      const desired = await o.store.changes();
      if (desired.length === 0) return;
      const info = await o.swarm.swarmInfo();
      const nodes = info.kind === "swarm-manager" ? await o.swarm.listNodes() : null;
      let refused: unknown = null;
      for (const step of planNodes(desired, nodes)) {
        switch (step.kind) {
          case "applied":
            await o.store.applied(step.nodeId, step.generation);
            break;
          case "fail":
            await o.store.failed(step.nodeId, step.generation, step.error);
            break;
          case "apply":
            try {
              await o.swarm.updateNode(step.nodeId, step.change);
              await o.store.applied(step.nodeId, step.generation);
              o.log(`[nodes] ${step.nodeId}: ${Object.keys(step.change).join(" and ")} set as asked`);
            } catch (err) {
              // A stale version (another writer between our read and update) is retried by the next pass.
              await o.store.failed(step.nodeId, step.generation, `the engine refused the change: ${describe(err)}`);
              refused ??= err;
            }
            break;
        }
      }
      if (refused) throw refused;
    },
  };
}
