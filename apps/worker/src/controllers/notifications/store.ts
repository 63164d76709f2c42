import { and, eq, lte, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { notificationChannel, notificationDelivery } from "@levelrail/db/schema/notifications";
import type { ChannelRow } from "@levelrail/services/notifications/send";
import type { NotificationPayload } from "@levelrail/spec/notifications";
import { countCrashLoops, crashLoopOrgs, emitCrashLoops } from "../../notifications/emit";
import type { Attempted, Pending } from "./plan";

/** The most pending deliveries of one organization a pass looks at (the most overdue first). */
const OBSERVED = 200;

/** One delivery to send: its row and its channel's. */
export interface Outgoing {
  id: string;
  event: string;
  attempts: number;
  payload: NotificationPayload;
  channel: ChannelRow;
}

/** The outbox (`notification_delivery`) as the notifications controller reads and writes it. */
export interface Outbox {
  /** The organization's pending deliveries, the most overdue first (at most 200). */
  pending(orgId: string): Promise<Pending[]>;
  /** How many of its crash loops are not enqueued yet. */
  crashLoops(orgId: string): Promise<number>;
  /** Enqueues them (one delivery per event and channel, however often it runs). */
  enqueueCrashLoops(orgId: string): Promise<number>;
  /**
   * Leases the deliveries that are still pending and due (their next attempt moved `leaseMs` on, past
   * their deadline), so no other sender sends them meanwhile; answers those it leased.
   */
  lease(ids: string[], leaseMs: number): Promise<string[]>;
  /** A delivery with its channel; null when its channel was deleted (the delivery went with it). */
  load(id: string): Promise<Outgoing | null>;
  /** Records one attempt's outcome. */
  record(id: string, a: Attempted): Promise<void>;
  /**
   * Organizations with deliveries due now or crash loops to enqueue: the resync wakes their outboxes
   * (one whose next delivery is due later comes back on its own requeue, or at a resync once due).
   */
  orgsWithWork(): Promise<string[]>;
}

export function pgOutbox(db: Db): Outbox {
  return {
    async pending(orgId) {
      const rows = await db
        .select({ id: notificationDelivery.id, attempts: notificationDelivery.attempts, nextAttemptAt: notificationDelivery.nextAttemptAt })
        .from(notificationDelivery)
        .where(and(eq(notificationDelivery.orgId, orgId), eq(notificationDelivery.status, "pending")))
        .orderBy(notificationDelivery.nextAttemptAt, notificationDelivery.id)
        .limit(OBSERVED);
      return rows;
    },
    crashLoops: (orgId) => countCrashLoops(db, orgId),
    enqueueCrashLoops: (orgId) => emitCrashLoops(db, orgId),
    async lease(ids, leaseMs) {
      if (!ids.length) return [];
      const rows = await db.execute<{ id: string }>(sql`
        update ${notificationDelivery} set next_attempt_at = now() + ${`${leaseMs} milliseconds`}::interval
        where id in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)}) and status = 'pending' and next_attempt_at <= now()
        returning id`);
      const leased = new Set(rows.map((r) => r.id));
      return ids.filter((id) => leased.has(id));
    },
    async load(id) {
      const [row] = await db
        .select({ delivery: notificationDelivery, channel: notificationChannel })
        .from(notificationDelivery)
        .innerJoin(notificationChannel, and(eq(notificationChannel.id, notificationDelivery.channelId), eq(notificationChannel.orgId, notificationDelivery.orgId)))
        .where(eq(notificationDelivery.id, id));
      if (!row) return null;
      const { delivery, channel } = row;
      return { id: delivery.id, event: delivery.event, attempts: delivery.attempts, payload: delivery.payload as unknown as NotificationPayload, channel };
    },
    async record(id, a) {
      const set =
        a.status === "delivered"
          ? { status: a.status, attempts: a.attempts, lastError: a.lastError, deliveredAt: a.deliveredAt }
          : a.status === "pending"
            ? { status: a.status, attempts: a.attempts, lastError: a.lastError, nextAttemptAt: a.nextAttemptAt }
            : { status: a.status, attempts: a.attempts, lastError: a.lastError };
      await db.update(notificationDelivery).set(set).where(eq(notificationDelivery.id, id));
    },
    async orgsWithWork() {
      const pending = await db.selectDistinct({ orgId: notificationDelivery.orgId }).from(notificationDelivery).where(and(eq(notificationDelivery.status, "pending"), lte(notificationDelivery.nextAttemptAt, sql`now()`)));
      return [...new Set([...pending.map((r) => r.orgId), ...(await crashLoopOrgs(db))])];
    },
  };
}
