import { integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * What an operator asked of one node of a swarm (docs/operating/nodes-and-swarm.md, `PATCH /api/v1/nodes/{id}`): its
 * availability and its operator labels, each null when not asked. The web app writes it; the
 * leading worker applies it through the swarm manager and keeps it applied (a change made by hand
 * on the engine is put back). `generation` grows with every request; `appliedGeneration` is the one
 * the worker last put on the node, so a request is pending while the two differ and `error` is null.
 */
export const nodeChange = pgTable("node_change", {
  /** The engine's node id. */
  nodeId: text("node_id").primaryKey(),
  availability: text("availability", { enum: ["active", "pause", "drain"] }),
  labels: jsonb("labels").$type<Record<string, string>>(),
  generation: integer("generation").notNull().default(1),
  appliedGeneration: integer("applied_generation").notNull().default(0),
  /** Why the last try to apply `generation` failed (the node left the swarm, the engine refused); null once applied. */
  error: text("error"),
  requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
  /** Who asked, as the audit log names them. */
  requestedBy: text("requested_by"),
  appliedAt: timestamp("applied_at", { withTimezone: true }),
});
