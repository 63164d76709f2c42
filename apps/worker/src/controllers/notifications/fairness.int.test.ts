// Fairness and deadlines of notification delivery (issue 22 item 8) against the real PostgreSQL and
// receivers on loopback (no engine), the notifications controller on a runner like the worker's (one
// key per organization, slots shared fairly by organization): one organization's endpoints that never
// answer hold at most its share of the sends, for at most the deadline, and another organization's
// delivery goes at once; a delivery ends within its deadline whatever step hangs (here: the name's lookup).
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { and, eq, sum } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { notificationDelivery } from "@levelrail/db/schema/notifications";
import { createChannel } from "@levelrail/services/notifications/channels";
import { formatKey, notificationsKey } from "@levelrail/spec/keys";
import { payloadOf } from "@levelrail/spec/notifications";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { webhookReceiver } from "@levelrail/testkit/receivers";
import { seedOrg } from "@levelrail/testkit/seed";
import { Runner, type RunnerEvent } from "../../reconcile/runner";
import { type NotificationsControllerOptions, notificationTenants, notificationsController } from "./reconcile";
import { pgOutbox } from "./store";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let slow: Awaited<ReturnType<typeof seedOrg>>;
let fast: Awaited<ReturnType<typeof seedOrg>>;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
/** Accepts connections and never answers. */
let silent: Server;
const held: Socket[] = [];
let silentUrl: string;
const logs: string[] = [];

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "notify-fair");
  ({ db, sql } = createDb(database.url));
  slow = await seedOrg(db, "fair-slow");
  fast = await seedOrg(db, "fair-fast", slow.kit);
  hook = await webhookReceiver();
  silent = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`;
}, 120_000);

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise<void>((resolve) => silent?.close(() => resolve()));
  await hook?.close();
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `n` due deliveries of `event` to a new channel of `org` at `url`, oldest first. */
async function queued(org: typeof slow, url: string, n: number, event: string) {
  const c = await createChannel({ ctx: { ...org, allowPrivateTargets: true }, input: { kind: "webhook", name: `ch-${event}`, url, events: ["deploy.failed"] } });
  const payload = payloadOf("test", { id: org.orgId, name: "o" }, event, new Date());
  for (let i = 0; i < n; i++) {
    await db.insert(notificationDelivery).values({ orgId: org.orgId, channelId: c.id, event, payload: { ...payload }, nextAttemptAt: new Date(Date.now() - 60_000 + i) });
  }
  return c.id;
}
const attemptsMade = async () => Number((await db.select({ n: sum(notificationDelivery.attempts) }).from(notificationDelivery))[0]?.n ?? 0);

/** The controller on a runner of `concurrency` slots, as the worker runs it; errors of its passes are collected. */
function runner(o: Omit<NotificationsControllerOptions, "outbox" | "log">, concurrency = 4) {
  const errors: RunnerEvent[] = [];
  const r = new Runner(notificationsController({ ...o, outbox: pgOutbox(db), log: (l) => logs.push(l) }), {
    concurrency,
    tenantOf: notificationTenants,
    log: (e) => (e.type === "error" || e.type === "terminal" ? errors.push(e) : undefined),
  });
  return { r, errors };
}
/** What the resync does: every organization with work in its outbox is woken. */
const wakeAll = async (r: Runner) => {
  for (const id of await pgOutbox(db).orgsWithWork()) r.enqueue(formatKey(notificationsKey(id)));
};
const statusOf = (channelId: string) => db.select({ status: notificationDelivery.status, lastError: notificationDelivery.lastError }).from(notificationDelivery).where(and(eq(notificationDelivery.channelId, channelId)));

describe("notification delivery", () => {
  it("does not let one organization's endpoints that never answer delay another's delivery", async () => {
    const DEADLINE = 3000;
    // Eight old deliveries of one organization to an endpoint that never answers, then one of another's.
    const slowChannel = await queued(slow, silentUrl, 8, "slow");
    const fastChannel = await queued(fast, hook.url, 1, "fast");
    const { r, errors } = runner({ keyring: slow.kit.keyring, policy: { allowPrivate: true }, backoffMs: [], timeoutMs: DEADLINE });
    const started = Date.now();
    await wakeAll(r);
    let deliveredAfter = -1;
    while (Date.now() - started < 3 * DEADLINE) {
      if ((await statusOf(fastChannel))[0]?.status === "delivered") {
        deliveredAfter = Date.now() - started;
        break;
      }
      await sleep(50);
    }
    console.log(`the other organization's delivery: delivered after ${deliveredAfter} ms, beside 8 to an endpoint that never answers (deadline ${DEADLINE} ms)`);
    expect(deliveredAfter).toBeGreaterThanOrEqual(0);
    expect(deliveredAfter).toBeLessThan(DEADLINE);
    // The silent endpoint never got more than its organization's share of the sends at once.
    expect(held.length).toBeLessThanOrEqual(2);

    // One that becomes due while the slow ones are in flight goes out too, without waiting for them.
    const late = Date.now();
    const [lateRow] = await db
      .insert(notificationDelivery)
      .values({ orgId: fast.orgId, channelId: fastChannel, event: "fast", payload: { ...payloadOf("test", { id: fast.orgId, name: "o" }, "late", new Date()) } })
      .returning();
    r.enqueue(formatKey(notificationsKey(fast.orgId))); // what the NOTIFY of a queued delivery does
    let lateAfter = -1;
    while (Date.now() - late < 2 * DEADLINE) {
      const [r] = await db.select({ status: notificationDelivery.status }).from(notificationDelivery).where(eq(notificationDelivery.id, lateRow!.id));
      if (r?.status === "delivered") {
        lateAfter = Date.now() - late;
        break;
      }
      await sleep(50);
    }
    console.log(`a delivery due mid-round: delivered after ${lateAfter} ms`);
    expect(lateAfter).toBeGreaterThanOrEqual(0);
    expect(lateAfter).toBeLessThan(DEADLINE);

    await r.idle();
    await r.stop();
    const total = Date.now() - started;
    expect(errors).toEqual([]);
    expect(await attemptsMade()).toBe(10);
    const rows = await statusOf(slowChannel);
    expect(rows.map((r) => r.status)).toEqual(Array(8).fill("failed"));
    // Each ended at its deadline: 8 deliveries, 2 at a time, ≈ 4 deadlines in all.
    for (const r of rows) expect(r.lastError).toMatch(/127\.0\.0\.1 did not answer within 3000 ms|no outcome within 3000 ms/);
    console.log(`8 silent deliveries, 2 at a time: ${total} ms`);
    expect(total).toBeLessThan(5 * DEADLINE);
  }, 60_000);

  it("ends a delivery at its deadline even when the name's lookup never answers", async () => {
    const channel = await queued(fast, "http://hooks.example.com/x", 1, "dns");
    const never = () => new Promise<never>(() => {});
    const { r, errors } = runner({ keyring: fast.kit.keyring, policy: { allowPrivate: false, lookup: never }, backoffMs: [], timeoutMs: 1000 });
    const before = await attemptsMade();
    const started = Date.now();
    r.enqueue(formatKey(notificationsKey(fast.orgId)));
    await r.idle();
    await r.stop();
    expect(errors).toEqual([]);
    expect((await attemptsMade()) - before).toBe(1);
    const took = Date.now() - started;
    console.log(`a lookup that never answers: the delivery failed after ${took} ms (deadline 1000 ms)`);
    expect(took).toBeLessThan(3000);
    expect(await statusOf(channel)).toEqual([{ status: "failed", lastError: "no outcome within 1000 ms (the delivery's deadline)" }]);
  }, 30_000);
});
