import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { notificationChannel, notificationDelivery } from "@levelrail/db/schema/notifications";
import type { Keyring } from "@levelrail/secrets";
import type { TargetPolicy } from "@levelrail/services/notifications/address";
import { deliver } from "@levelrail/services/notifications/send";
import type { NotificationPayload } from "@levelrail/spec/notifications";
import { emitCrashLoops } from "./emit";
import { type Due, pickFair } from "./fair";

/** Waits between attempts: after the 1st failure 10 s, …; after the last, the delivery is `failed`. */
export const DEFAULT_BACKOFF_MS = [10_000, 30_000, 120_000, 600_000, 3_600_000];

export interface DispatcherOptions {
  db: Db;
  keyring: Keyring;
  /** The installation's address policy (LEVELRAIL_ALLOW_PRIVATE_TARGETS, the panel's own host). */
  policy: TargetPolicy;
  /** How often due deliveries are looked for (and new crash loops enqueued); default 2 s. */
  intervalMs?: number;
  /** The waits between attempts; its length + 1 is how many attempts a delivery gets. */
  backoffMs?: number[];
  /** One delivery's deadline, from its start to its outcome whatever the remote side does; default 10 s. */
  timeoutMs?: number;
  /** How many deliveries are sent at once; default 4. */
  concurrency?: number;
  /** How many of them one organization may have at once; default 2 (half: the others always get the rest). */
  perOrgConcurrency?: number;
  log: (line: string) => void;
}

/** The most due deliveries looked at per claim (each organization's first ones come first). */
const CANDIDATES = 200;

/**
 * Sends due pending deliveries and records each outcome: delivered, or retried after the next wait
 * of the backoff, or `failed` after the last.
 *
 * Fair across organizations: a slot that frees is refilled at once, round-robin across the
 * organizations with due deliveries (the one served longest ago first), and no organization has
 * more than `perOrgConcurrency` in flight; every delivery ends within its deadline. So one
 * organization's slow or flooded endpoints hold at most its share of the slots for at most the
 * deadline each, and never delay another's by more than that. A claimed delivery is leased (its
 * next attempt moved past its deadline), so another dispatcher never sends it twice.
 */
export class NotificationDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;
  private readonly backoff: number[];
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly perOrg: number;
  /** Round-robin memory: when each organization last had a delivery started. */
  private readonly lastServed = new Map<string, number>();
  private served = 0;

  constructor(private readonly o: DispatcherOptions) {
    this.backoff = o.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.concurrency = Math.max(1, o.concurrency ?? 4);
    this.perOrg = Math.max(1, Math.min(this.concurrency, o.perOrgConcurrency ?? Math.max(1, Math.floor(this.concurrency / 2))));
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

  /**
   * One round: enqueue new crash loops, then send what is due, refilling each slot as it frees until
   * nothing more is due. Answers how many deliveries it attempted.
   */
  async tick(): Promise<number> {
    await emitCrashLoops(this.o.db);
    const running = new Set<Promise<void>>();
    const inFlight = new Map<string, number>();
    let attempted = 0;
    for (;;) {
      const free = this.concurrency - running.size;
      if (!this.stopped && free > 0) {
        for (const d of await this.claim(free, inFlight)) {
          attempted++;
          inFlight.set(d.orgId, (inFlight.get(d.orgId) ?? 0) + 1);
          this.lastServed.set(d.orgId, ++this.served);
          const p: Promise<void> = this.attempt(d.id)
            .catch((err: unknown) => this.o.log(`[notifications] ${err instanceof Error ? err.message : String(err)}`))
            .finally(() => {
              running.delete(p);
              inFlight.set(d.orgId, (inFlight.get(d.orgId) ?? 1) - 1);
            });
          running.add(p);
        }
      }
      // Only what starts at once is claimed, so stopping leaves nothing claimed and unsent.
      if (running.size === 0) return attempted;
      // Wait for a slot to free, or, while some are free, look again after the interval: what
      // became due meanwhile (another organization's) need not wait for a slow delivery to end.
      let timer: NodeJS.Timeout | undefined;
      const poll = running.size < this.concurrency ? new Promise<void>((r) => (timer = setTimeout(r, this.o.intervalMs ?? 2000))) : null;
      await Promise.race(poll ? [...running, poll] : running);
      clearTimeout(timer);
    }
  }

  /** Takes up to `free` due deliveries, fairly (pickFair), and leases them past their deadline. */
  private async claim(free: number, inFlight: ReadonlyMap<string, number>): Promise<Due[]> {
    const candidates = await this.o.db.execute<{ id: string; org_id: string }>(sql`
      select id, org_id from (
        select id, org_id, next_attempt_at,
          row_number() over (partition by org_id order by next_attempt_at, id) as rn
        from ${notificationDelivery}
        where status = 'pending' and next_attempt_at <= now()
      ) due
      where rn <= ${this.perOrg}
      order by rn, next_attempt_at
      limit ${CANDIDATES}`);
    const picked = pickFair(
      candidates.map((c) => ({ id: c.id, orgId: c.org_id })),
      { free, perOrg: this.perOrg, inFlight, lastServed: this.lastServed },
    );
    if (picked.length === 0) return [];
    const leaseMs = this.timeoutMs + 5000;
    // Still due and pending: another dispatcher may have leased some meanwhile.
    const claimed = await this.o.db.execute<{ id: string }>(sql`
      update ${notificationDelivery} set next_attempt_at = now() + ${`${leaseMs} milliseconds`}::interval
      where id in (${sql.join(picked.map((d) => sql`${d.id}::uuid`), sql`, `)}) and status = 'pending' and next_attempt_at <= now()
      returning id`);
    const ok = new Set(claimed.map((r) => r.id));
    return picked.filter((d) => ok.has(d.id));
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
      policy: this.o.policy,
      timeoutMs: this.timeoutMs,
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
