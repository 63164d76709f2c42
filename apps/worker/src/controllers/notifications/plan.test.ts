import { describe, expect, it } from "vitest";
import { type Attempted, type Observed, type Outcome, type Pending, type Plan, DEFAULT_BACKOFF_MS, afterAttempt, plan } from "./plan";

const NOW = new Date("2026-12-07T12:00:00Z");
const at = (ms: number) => new Date(NOW.getTime() + ms);
/** A pending delivery `id`, due `inMs` from now (negative: overdue), after `attempts` attempts. */
const d = (id: string, inMs: number, attempts = 0): Pending => ({ id, attempts, nextAttemptAt: at(inMs) });
const seen = (pending: Pending[], crashLoops = 0): Observed => ({ now: NOW, pending, crashLoops });
const want = (send: string[], requeueAfterMs?: number, enqueueCrashLoops = false) => ({ send, requeueAfterMs, enqueueCrashLoops });

describe("plan: which of an organization's deliveries go now and which wait", () => {
  it.each<[string, Observed, number, ReturnType<typeof want>]>([
    ["nothing pending: nothing to do, no requeue", seen([]), 2, want([])],
    ["one due (just queued): sent, looked at again at once", seen([d("a", 0)]), 2, want(["a"], 0)],
    ["three overdue, two per organization: the two most overdue go, the third on the next pass at once", seen([d("c", -100), d("a", -3000), d("b", -2000)]), 2, want(["a", "b"], 0)],
    ["a flood of one organization: never more than its share at once", seen(Array.from({ length: 50 }, (_, i) => d(`x${String(i).padStart(2, "0")}`, -60_000 + i))), 2, want(["x00", "x01"], 0)],
    ["equally due: by id, so every pass picks the same", seen([d("b", -10), d("a", -10)]), 1, want(["a"], 0)],
    ["one due, one waiting out its retry: the due one goes", seen([d("a", -5), d("b", 10_000, 1)]), 2, want(["a"], 0)],
    ["only a retry to wait for (10 s): nothing sent, back when it is due", seen([d("a", 10_000, 1)]), 2, want([], 10_000)],
    ["retries at 30 s and 2 min: back at the first", seen([d("a", 120_000, 3), d("b", 30_000, 2)]), 2, want([], 30_000)],
    ["leased by a sender that is sending it (due past its deadline): waits for the lease", seen([d("a", 15_000)]), 2, want([], 15_000)],
    ["a lease that ran out (the sender died mid-send): due again, sent", seen([d("a", -1, 2)]), 2, want(["a"], 0)],
    ["a crash loop not yet enqueued: enqueued, looked at again at once to send it", seen([], 1), 2, want([], 0, true)],
    ["a crash loop and a due delivery: both in one pass", seen([d("a", -1)], 3), 2, want(["a"], 0, true)],
    ["a crash loop beside a retry that waits: enqueued, back at once", seen([d("a", 60_000, 1)], 1), 2, want([], 0, true)],
  ])("%s", (_situation, observed, perOrg, expected) => {
    const before = structuredClone(observed);
    const p: Plan = plan(observed, perOrg);
    expect({ send: p.send.map((x) => x.id), requeueAfterMs: p.requeueAfterMs, enqueueCrashLoops: p.enqueueCrashLoops }).toEqual(expected);
    expect(observed).toStrictEqual(before); // pure: nothing it was given changed
  });
});

const ok: Outcome = { ok: true };
const err500: Outcome = { ok: false, error: "hooks.example.com answered 500" };

describe("afterAttempt: the retry schedule and giving up", () => {
  it.each<[string, number, Outcome, readonly number[], Attempted]>([
    ["first attempt delivered", 0, ok, DEFAULT_BACKOFF_MS, { status: "delivered", attempts: 1, lastError: "", deliveredAt: NOW }],
    ["delivered after two failures: the last error cleared", 2, ok, DEFAULT_BACKOFF_MS, { status: "delivered", attempts: 3, lastError: "", deliveredAt: NOW }],
    ["first failure: retried after 10 s", 0, err500, DEFAULT_BACKOFF_MS, { status: "pending", attempts: 1, lastError: err500.error, nextAttemptAt: at(10_000), retryInMs: 10_000 }],
    ["second failure: after 30 s", 1, err500, DEFAULT_BACKOFF_MS, { status: "pending", attempts: 2, lastError: err500.error, nextAttemptAt: at(30_000), retryInMs: 30_000 }],
    ["fifth failure: after 1 h", 4, err500, DEFAULT_BACKOFF_MS, { status: "pending", attempts: 5, lastError: err500.error, nextAttemptAt: at(3_600_000), retryInMs: 3_600_000 }],
    ["sixth failure (the last of 10 s, 30 s, 2 min, 10 min, 1 h): failed", 5, err500, DEFAULT_BACKOFF_MS, { status: "failed", attempts: 6, lastError: err500.error }],
    ["no backoff: failed at the first failure", 0, err500, [], { status: "failed", attempts: 1, lastError: err500.error }],
  ])("%s", (_situation, attempts, outcome, backoff, expected) => {
    expect(afterAttempt({ attempts }, outcome, NOW, backoff)).toEqual(expected);
  });
});
