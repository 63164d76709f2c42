import { bigint, index, pgTable, real, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organization } from "../orgs/table";
import { service } from "../services/table";

/**
 * One sample of a service's active container, as the engine's stats report it. Kept for a bounded
 * window (the worker deletes older ones as it samples).
 */
export const containerMetric = pgTable(
  "container_metric",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    serviceId: uuid("service_id").notNull().references(() => service.id, { onDelete: "cascade" }),
    container: text("container").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    /** Percent of one CPU (200 = two full CPUs). */
    cpuPercent: real("cpu_percent").notNull(),
    memoryBytes: bigint("memory_bytes", { mode: "number" }).notNull(),
    /** The container's memory limit, or null when it has none. */
    memoryLimitBytes: bigint("memory_limit_bytes", { mode: "number" }),
    netRxBytes: bigint("net_rx_bytes", { mode: "number" }).notNull(),
    netTxBytes: bigint("net_tx_bytes", { mode: "number" }).notNull(),
  },
  (t) => [index("container_metric_service_at").on(t.serviceId, t.at), index("container_metric_at").on(t.at)],
);

export type ServiceEventKind = "crash_loop_started" | "crash_loop_ended";

/** What happened to a service outside its deploys (a crash loop's start and end): for DORA and notifications. */
export const serviceEvent = pgTable(
  "service_event",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id").notNull().references(() => service.id, { onDelete: "cascade" }),
    kind: text("kind").$type<ServiceEventKind>().notNull(),
    /** Restarts, last exit, the last lines printed (secrets redacted): what a notification says. */
    detail: text("detail").notNull().default(""),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("service_event_service_at").on(t.serviceId, t.at)],
);
