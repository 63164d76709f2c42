import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { nodeChange } from "@levelrail/db/schema/nodes";
import type { NodeChangeStore } from "./controllers/nodes/reconcile";

/** The node controller's rows (`node_change`); a result is recorded only against the request it answers. */
export function pgNodeChangeStore(db: Db): NodeChangeStore {
  return {
    async changes() {
      const rows = await db.select().from(nodeChange);
      return rows.map((r) => ({
        nodeId: r.nodeId,
        availability: r.availability,
        labels: r.labels ?? null,
        generation: r.generation,
        appliedGeneration: r.appliedGeneration,
        error: r.error,
      }));
    },
    async applied(nodeId, generation) {
      await db
        .update(nodeChange)
        .set({ appliedGeneration: generation, error: null, appliedAt: sql`now()` })
        .where(and(eq(nodeChange.nodeId, nodeId), eq(nodeChange.generation, generation)));
    },
    async failed(nodeId, generation, error) {
      await db
        .update(nodeChange)
        .set({ error })
        .where(and(eq(nodeChange.nodeId, nodeId), eq(nodeChange.generation, generation)));
    },
  };
}
