import { describe, expect, it } from "vitest";
import { testKit } from "@levelrail/testkit/seed";
import { formatKey, notificationsKey } from "@levelrail/spec/keys";
import { SHARED_TENANT } from "../../reconcile/fair-queue";
import type { Pending } from "./plan";
import { notificationTenants, notificationsController } from "./reconcile";
import type { Outbox } from "./store";

const ORG = "5d1c0e9a-7b6f-4e3d-9c2b-1a0f9e8d7c6b";
const NOW = new Date("2026-12-07T12:00:00Z");
const KEY = formatKey(notificationsKey(ORG));

/** An outbox in memory that records what the pass asked of it; `lease` grants only `leasable`, `load` finds no channel. */
function outbox(pending: Pending[], crashLoops = 0, leasable: string[] = pending.map((p) => p.id)) {
  const calls: string[] = [];
  const o: Outbox = {
    pending: async (org) => (calls.push(`pending ${org}`), pending),
    crashLoops: async () => crashLoops,
    enqueueCrashLoops: async (org) => (calls.push(`enqueue crash loops ${org}`), crashLoops),
    lease: async (ids, ms) => (calls.push(`lease ${ids.join(",")} for ${ms} ms`), ids.filter((id) => leasable.includes(id))),
    load: async (id) => (calls.push(`load ${id}`), null),
    record: async (id) => void calls.push(`record ${id}`),
    orgsWithWork: async () => [],
  };
  return { o, calls };
}

const controller = (o: Outbox) => notificationsController({ outbox: o, keyring: testKit().keyring, policy: { allowPrivate: false }, timeoutMs: 1000, now: () => NOW, log: () => {} });
const due = (id: string, inMs = -1): Pending => ({ id, attempts: 0, nextAttemptAt: new Date(NOW.getTime() + inMs) });

describe("the notifications pass", () => {
  it.each<[string, ReturnType<typeof outbox>, string, { requeueAfterMs?: number }, string[]]>([
    ["a key of another kind: nothing read, nothing asked", outbox([due("a")]), "ingress", {}, []],
    ["an empty outbox: read, nothing else", outbox([]), KEY, {}, [`pending ${ORG}`]],
    ["a retry due in 10 s: nothing leased, back then", outbox([due("a", 10_000)]), KEY, { requeueAfterMs: 10_000 }, [`pending ${ORG}`]],
    ["crash loops: enqueued, back at once to send them", outbox([], 2), KEY, { requeueAfterMs: 0 }, [`pending ${ORG}`, `enqueue crash loops ${ORG}`]],
    ["three due: two leased past their deadline (1 s + 5 s), back at once for the third", outbox([due("a"), due("b"), due("c")], 0, []), KEY, { requeueAfterMs: 0 }, [`pending ${ORG}`, "lease a,b for 6000 ms"]],
    ["another sender leased one first: only the other is sent", outbox([due("a"), due("b")], 0, ["b"]), KEY, { requeueAfterMs: 0 }, [`pending ${ORG}`, "lease a,b for 6000 ms", "load b"]],
    ["its channel was deleted meanwhile (the delivery with it): nothing sent or recorded", outbox([due("a")]), KEY, { requeueAfterMs: 0 }, [`pending ${ORG}`, "lease a for 6000 ms", "load a"]],
  ])("%s", async (_situation, { o, calls }, key, result, asked) => {
    expect(await controller(o).reconcile(key)).toEqual(result);
    expect(calls).toEqual(asked);
  });

  it("shares the runner's slots by organization: a key's tenant is its organization", () => {
    expect(notificationTenants(KEY)).toBe(ORG);
    expect(notificationTenants("images")).toBe(SHARED_TENANT);
    expect(notificationTenants("notifications:")).toBe(SHARED_TENANT);
  });
});
