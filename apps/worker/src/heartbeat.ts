import type { Db } from "@levelrail/db/client";
import { workerHeartbeat } from "@levelrail/db/schema/worker";
import { eq, sql } from "drizzle-orm";

/** What the leader says of itself, for `levelrail doctor`: that it leads, and when its last resync finished. */
export interface Heartbeat {
  /** It starts leading (its row is taken over from whichever worker led before): the row's runner is the fence (`fence.ts`). */
  leading(): Promise<void>;
  /** A resync (the pass over the whole fleet) finished. */
  passed(): Promise<void>;
}

export function pgHeartbeat(db: Db, shortName: string, runner: string, resyncMs: number): Heartbeat {
  const resyncSeconds = Math.max(1, Math.round(resyncMs / 1000));
  return {
    async leading() {
      const row = { shortName, runner, leadingSince: sql`now()`, lastPassAt: null, resyncSeconds };
      await db.insert(workerHeartbeat).values(row).onConflictDoUpdate({ target: workerHeartbeat.shortName, set: row });
    },
    async passed() {
      const row = { shortName, runner, lastPassAt: sql`now()`, resyncSeconds };
      // Only while it still leads: a worker that lost the lead never takes the row (the fence) back.
      await db.insert(workerHeartbeat).values(row).onConflictDoUpdate({ target: workerHeartbeat.shortName, set: row, setWhere: eq(workerHeartbeat.runner, runner) });
    },
  };
}
