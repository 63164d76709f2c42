import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The leading worker of an installation (one per short name: the leader lock is per short name),
 * as it last said of itself. Written by the leader only; `levelrail doctor` reads it to tell a
 * worker that leads and works from one that holds the lock but is stuck. Times are the database's.
 */
export const workerHeartbeat = pgTable("worker_heartbeat", {
  shortName: text("short_name").primaryKey(),
  /** The leading process: `<host>:<pid>:<random>`. */
  runner: text("runner").notNull(),
  leadingSince: timestamp("leading_since", { withTimezone: true }).notNull().defaultNow(),
  /**
   * When its last resync finished: the pass over the whole fleet (the engine relisted, every
   * service and database queued, networks and ingress) that runs every `resyncSeconds`.
   */
  lastPassAt: timestamp("last_pass_at", { withTimezone: true }),
  resyncSeconds: integer("resync_seconds").notNull(),
});
