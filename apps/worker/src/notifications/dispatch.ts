import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { notificationChannel, notificationDelivery } from "@levelrail/db/schema/notifications";
import type { Keyring } from "@levelrail/secrets";
import type { Lookup } from "@levelrail/services/notifications/address";
import { deliver } from "@levelrail/services/notifications/send";
import type { NotificationPayload } from "@levelrail/spec/notifications";
import { emitCrashLoops } from "./emit";

/** Waits between attempts: after the 1st failure 10 s, …; after the last, the delivery is `failed`. */
export const DEFAULT_BACKOFF_MS = [10_000, 30_000, 120_000, 600_000, 3_600_000];

export interface DispatcherOptions {
  db: Db;
  keyring: Keyring;
  panelHost?: string | undefined;
  /** How often due deliveries are looked for (and new crash loops enqueued); default 2 s. */
  intervalMs?: number;
  /** The waits between attempts; its length + 1 is how many attempts a delivery gets. */
  backoffMs?: number[];
  /** One attempt's limit; default 10 s. */
  timeoutMs?: number;
  /** How many deliveries are sent at once; default 4. */
  concurrency?: number;
  lookup?: Lookup;
  log: (line: string) => void;
}

/**
 * Sends due pending deliveries and records each outcome: delivered, or retried after the next wait
 * of the backoff, or `failed` after the last. A claimed delivery is leased (its next attempt moved
 * past the request's limit), so a tick that overlaps another never sends it twice.
 */
export class NotificationDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;
  private readonly backoff: number[];
  private readonly timeoutMs: number;

  constructor(private readonly o: DispatcherOptions) {
    this.backoff = o.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.timeoutMs = o.timeoutMs ?? 10_000;
  }

  start() {
    const loop = () => {
      this.running = this.tick()
        .then(() => undefined)
        .catch((err: unknown) => this.o.log(`[notifications] ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => {
          this.running = null;
          if (this.timer) this.timer = setTimeout(loop, this.o.intervalMs ?? 2000);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  /** Stops looking; the attempts in flight end (within one request's limit), no new one starts. */
  async stop() {
    this.stopped = true;
    const t = this.timer;
    this.timer = null;
    if (t) clearTimeout(t);
    await this.running;
  }

  /** One round: enqueue new crash loops, then send what is due. Answers how many deliveries it attempted. */
  async tick(): Promise<number> {
    await emitCrashLoops(this.o.db);
    const leaseMs = this.timeoutMs * 2 + 5000;
    const claimed = await this.o.db.execute<{ id: string }>(sql`
      update ${notificationDelivery} set next_attempt_at = now() + ${`${leaseMs} milliseconds`}::interval
      where id in (
        select id from ${notificationDelivery}
        where status = 'pending' and next_attempt_at <= now()
        order by next_attempt_at limit 50 for update skip locked
      )
      returning id`);
    const ids = claimed.map((r) => r.id);
    const workers = Array.from({ length: Math.min(this.o.concurrency ?? 4, ids.length) }, async () => {
      // A claimed delivery left unsent when stopping is due again once its lease runs out.
      for (let id = ids.shift(); id !== undefined && !this.stopped; id = ids.shift()) await this.attempt(id);
    });
    await Promise.all(workers);
    return claimed.length;
  }

  private async attempt(id: string) {
    const [row] = await this.o.db
      .select({ delivery: notificationDelivery, channel: notificationChannel })
      .from(notificationDelivery)
      .innerJoin(notificationChannel, and(eq(notificationChannel.id, notificationDelivery.channelId), eq(notificationChannel.orgId, notificationDelivery.orgId)))
      .where(eq(notificationDelivery.id, id));
    if (!row) return; // its channel was deleted meanwhile (the delivery went with it)
    const { delivery, channel } = row;
    const outcome = await deliver(channel, delivery.id, delivery.payload as unknown as NotificationPayload, {
      keyring: this.o.keyring,
      panelHost: this.o.panelHost,
      timeoutMs: this.timeoutMs,
      ...(this.o.lookup ? { lookup: this.o.lookup } : {}),
    });
    const attempts = delivery.attempts + 1;
    if (outcome.ok) {
      await this.o.db.update(notificationDelivery).set({ status: "delivered", attempts, deliveredAt: new Date(), lastError: "" }).where(eq(notificationDelivery.id, id));
      return;
    }
    const wait = this.backoff[attempts - 1];
    const last = wait === undefined;
    await this.o.db
      .update(notificationDelivery)
      .set({
        status: last ? "failed" : "pending",
        attempts,
        lastError: outcome.error,
        ...(last ? {} : { nextAttemptAt: new Date(Date.now() + wait) }),
      })
      .where(eq(notificationDelivery.id, id));
    this.o.log(`[notifications] ${delivery.event} to channel ${channel.name} (attempt ${attempts}) failed: ${outcome.error}${last ? "; giving up" : `; retry in ${wait} ms`}`);
  }
}
