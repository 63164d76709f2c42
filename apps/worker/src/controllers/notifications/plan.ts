/** Waits between attempts: after the 1st failure 10 s, …; after the last, the delivery is `failed`. */
export const DEFAULT_BACKOFF_MS = [10_000, 30_000, 120_000, 600_000, 3_600_000];

/** One pending delivery of the organization's outbox, as the plan sees it (plain data). */
export interface Pending {
  id: string;
  attempts: number;
  /** When it is due; in the future while it waits out a retry or another sender's lease. */
  nextAttemptAt: Date;
}

/** What `observe` read of one organization's outbox. */
export interface Observed {
  now: Date;
  /** Its pending deliveries (any order). */
  pending: Pending[];
  /** Crash loops of its services not yet enqueued for a channel that picked `crash_loop.started`. */
  crashLoops: number;
}

/** What one pass does. */
export interface Plan {
  /** Enqueue the crash loops observed (one delivery per event and channel). */
  enqueueCrashLoops: boolean;
  /** The deliveries to send now, oldest due first: at most `perOrg`. */
  send: Pending[];
  /** When to look again: at once after any work (what was sent may be due again, more may be due), else when the next one is due; absent: nothing pending. */
  requeueAfterMs?: number;
}

const byDue = (a: Pending, b: Pending) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Pure: which of an organization's deliveries are due now and go (the `perOrg` most overdue: one
 * organization never holds more than that many sends at once, whatever its backlog), and when the
 * rest are due. Fairness between organizations is the runner's: each organization is a key, so
 * its passes take their share of the slots (docs/architecture.md#the-controller-contract).
 */
export function plan(o: Observed, perOrg: number): Plan {
  const now = o.now.getTime();
  const due = o.pending.filter((d) => d.nextAttemptAt.getTime() <= now).sort(byDue);
  const send = due.slice(0, Math.max(1, perOrg));
  const enqueueCrashLoops = o.crashLoops > 0;
  if (send.length || enqueueCrashLoops) return { enqueueCrashLoops, send, requeueAfterMs: 0 };
  if (!o.pending.length) return { enqueueCrashLoops, send };
  const next = Math.min(...o.pending.map((d) => d.nextAttemptAt.getTime()));
  return { enqueueCrashLoops, send, requeueAfterMs: Math.max(0, next - now) };
}

/** What one attempt ended with (`deliver`'s answer; an error names no secret and repeats nothing the remote side said). */
export type Outcome = { ok: true } | { ok: false; error: string };

/** A delivery's row after one attempt. */
export type Attempted =
  | { status: "delivered"; attempts: number; lastError: ""; deliveredAt: Date }
  | { status: "pending"; attempts: number; lastError: string; nextAttemptAt: Date; retryInMs: number }
  | { status: "failed"; attempts: number; lastError: string };

/** Pure: the retry schedule. Delivered; or pending again after the next wait of `backoffMs`; or, after the last, `failed`. */
export function afterAttempt(d: Pick<Pending, "attempts">, outcome: Outcome, now: Date, backoffMs: readonly number[]): Attempted {
  const attempts = d.attempts + 1;
  if (outcome.ok) return { status: "delivered", attempts, lastError: "", deliveredAt: now };
  const wait = backoffMs[attempts - 1];
  if (wait === undefined) return { status: "failed", attempts, lastError: outcome.error };
  return { status: "pending", attempts, lastError: outcome.error, nextAttemptAt: new Date(now.getTime() + wait), retryInMs: wait };
}
