import type { Keyring } from "@levelrail/secrets";
import type { TargetPolicy } from "@levelrail/services/notifications/address";
import { deliver } from "@levelrail/services/notifications/send";
import { parseKey } from "@levelrail/spec/keys";
import type { Controller, ReconcileResult } from "../../reconcile/controller";
import { SHARED_TENANT } from "../../reconcile/fair-queue";
import { DEFAULT_BACKOFF_MS, type Observed, type Pending, afterAttempt, plan } from "./plan";
import type { Outbox } from "./store";

export interface NotificationSettings {
  /** The waits between attempts; its length + 1 is how many attempts a delivery gets. */
  backoffMs?: number[];
  /** One delivery's deadline, from its start to its outcome whatever the remote side does; default 10 s. */
  timeoutMs?: number;
  /** How many organizations' deliveries are sent at once (the runner's slots); default 4. */
  concurrency?: number;
  /** How many deliveries of one organization are sent at once; default 2. */
  perOrgConcurrency?: number;
}

export interface NotificationsControllerOptions extends NotificationSettings {
  outbox: Outbox;
  keyring: Keyring;
  /** The installation's address policy (LEVELRAIL_ALLOW_PRIVATE_TARGETS, the panel's own host). */
  policy: TargetPolicy;
  now?: () => Date;
  log: (line: string) => void;
}

/** The runner's tenant of a `notifications:<orgId>` key: the organization itself, so organizations share the slots fairly. */
export function notificationTenants(key: string): string {
  const k = parseKey(key);
  return k?.kind === "notifications" ? k.id : SHARED_TENANT;
}

/**
 * One organization's outbox (`notifications:<orgId>`). Observe its pending deliveries (attempts,
 * next-attempt times) and its crash loops not yet enqueued; plan (pure) which deliveries are due now
 * (at most `perOrgConcurrency`) and when the next is; execute: enqueue the crash loops, lease the due
 * deliveries past their deadline (no other sender sends them meanwhile), send them at once through
 * the channel's sender, each within its deadline, and record each outcome (delivered, retried after
 * the next wait, or `failed` after the last). The key comes back at once after any work and, when
 * nothing is due, when the next delivery is. Organizations share the runner's slots fairly (one
 * key each), so one whose endpoints never answer holds one slot and `perOrgConcurrency` sends, each
 * for at most the deadline.
 */
export function notificationsController(o: NotificationsControllerOptions): Controller {
  const backoff = o.backoffMs ?? DEFAULT_BACKOFF_MS;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const perOrg = Math.max(1, o.perOrgConcurrency ?? 2);
  const now = o.now ?? (() => new Date());

  async function observe(orgId: string): Promise<Observed> {
    const [pending, crashLoops] = await Promise.all([o.outbox.pending(orgId), o.outbox.crashLoops(orgId)]);
    return { now: now(), pending, crashLoops };
  }

  /** Sends one leased delivery and records its outcome. */
  async function send(id: string): Promise<void> {
    const d = await o.outbox.load(id);
    if (!d) return; // its channel was deleted meanwhile (the delivery went with it)
    const outcome = await deliver(d.channel, d.id, d.payload, { keyring: o.keyring, policy: o.policy, timeoutMs });
    const next = afterAttempt(d, outcome, now(), backoff);
    await o.outbox.record(id, next);
    if (next.status !== "delivered") {
      o.log(`[notifications] ${d.event} to channel ${d.channel.name} (attempt ${next.attempts}) failed: ${next.lastError}${next.status === "failed" ? "; giving up" : `; retry in ${next.retryInMs} ms`}`);
    }
  }

  async function execute(due: Pending[]): Promise<void> {
    const leased = await o.outbox.lease(
      due.map((d) => d.id),
      timeoutMs + 5000,
    );
    // Every send ends (within its deadline) before the pass does; the first error is the pass's.
    const results = await Promise.allSettled(leased.map(send));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  return {
    name: "notifications",
    async reconcile(text): Promise<ReconcileResult> {
      const key = parseKey(text);
      if (key?.kind !== "notifications") return {};
      const p = plan(await observe(key.id), perOrg);
      if (p.enqueueCrashLoops) await o.outbox.enqueueCrashLoops(key.id);
      if (p.send.length) await execute(p.send);
      return p.requeueAfterMs === undefined ? {} : { requeueAfterMs: p.requeueAfterMs };
    },
  };
}
