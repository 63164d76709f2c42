import { index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organization } from "../orgs/table";

export type ChannelKind = "webhook" | "email";
export type DeliveryStatus = "pending" | "delivered" | "failed";

/**
 * A notification channel of an organization: a webhook (`config`: url, format `json`|`slack`) or
 * email over SMTP (`config`: host, port, secure, username, from, to). Its secret
 * (the webhook's signing secret, the SMTP password) is stored sealed only.
 */
export const notificationChannel = pgTable(
  "notification_channel",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    kind: text("kind").$type<ChannelKind>().notNull(),
    config: jsonb("config").$type<Record<string, unknown>>().notNull(),
    secretSealed: text("secret_sealed"),
    /** The events it is sent (`deploy.failed`, …). */
    events: jsonb("events").$type<string[]>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("notification_channel_org").on(t.orgId)],
);

/** One notification to one channel: its outcome, attempts and the next retry. */
export const notificationDelivery = pgTable(
  "notification_delivery",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    channelId: uuid("channel_id").notNull().references(() => notificationChannel.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    /** What is sent (never a secret value). */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    status: text("status").$type<DeliveryStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lastError: text("last_error").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (t) => [index("notification_delivery_due").on(t.status, t.nextAttemptAt), index("notification_delivery_channel").on(t.channelId, t.createdAt)],
);
