import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organization } from "../orgs/table";
import { release, service } from "../services/table";

/** Whether a service's domains are routed by Caddy right now, as the ingress controller last saw it. */
export const ingressStatus = pgTable("ingress_status", {
  serviceId: uuid("service_id").primaryKey().references(() => service.id, { onDelete: "cascade" }),
  live: boolean("live").notNull(),
  message: text("message").notNull().default(""),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** One sample per real cutover attempt: deploy frequency, failures and duration. */
export const deploySample = pgTable(
  "deploy_sample",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id").notNull().references(() => service.id, { onDelete: "cascade" }),
    releaseId: uuid("release_id").notNull().unique().references(() => release.id, { onDelete: "cascade" }),
    outcome: text("outcome").$type<"succeeded" | "failed">().notNull(),
    durationMs: integer("duration_ms").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("deploy_sample_at").on(t.at)],
);

/**
 * Images this installation pulled onto the engine (the pull brought that image id to the host under
 * that reference). Image collection removes only these, never an image anything else put there.
 */
export const pulledImage = pgTable(
  "pulled_image",
  {
    imageId: text("image_id").notNull(),
    ref: text("ref").notNull(),
    pulledAt: timestamp("pulled_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.imageId, t.ref] })],
);
