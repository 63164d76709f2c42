// Emission and delivery against the real PostgreSQL, a real HTTP receiver and a real SMTP server on
// loopback (no engine needed): each event enqueues one delivery per subscribed channel, exactly once;
// the notifications controller retries a 500 with backoff and delivers, gives up on a 3xx, and sends email.
import { and, eq, sum } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { listenDesired } from "@levelrail/db/notify";
import { backup } from "@levelrail/db/schema/databases";
import { notificationDelivery } from "@levelrail/db/schema/notifications";
import { serviceEvent } from "@levelrail/db/schema/observability";
import { release } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { createDatabase } from "@levelrail/services/database/write";
import { createChannel } from "@levelrail/services/notifications/channels";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { type ReconcileKey, formatKey, notificationsKey } from "@levelrail/spec/keys";
import type { NotificationPayload } from "@levelrail/spec/notifications";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { mailBody, mailHeader, smtpReceiver, validSignature, webhookReceiver } from "@levelrail/testkit/receivers";
import { seedOrg } from "@levelrail/testkit/seed";
import { pgDatabaseStore } from "../../database-store";
import { pgFleetStore } from "../../fleet-store";
import { pgHookRecorder } from "../../hook-store";
import { pgServiceEvents } from "../../service-events";
import type { Controller } from "../../reconcile/controller";
import { Runner, type RunnerEvent } from "../../reconcile/runner";
import { notificationTenants, notificationsController } from "./reconcile";
import { pgOutbox } from "./store";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let org: Awaited<ReturnType<typeof seedOrg>>;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
let secret: string;
let webhookId: string;
let emailId: string;
let serviceId: string;
const logs: string[] = [];

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "notify-dispatch");
  ({ db, sql } = createDb(database.url));
  org = await seedOrg(db, "dispatch");
  hook = await webhookReceiver();
  smtp = await smtpReceiver();
  await createApp({ ctx: org, envId: org.envId, input: { name: "shop" } });
  serviceId = (await createService({ ctx: org, envId: org.envId, input: { name: "web", app: "shop", image: "registry.example.com/shop:1.4.2", port: 8080 } })).id;
  // The receivers are on loopback: an installation that allows private targets (LEVELRAIL_ALLOW_PRIVATE_TARGETS).
  const trusted = { ...org, allowPrivateTargets: true };
  const w = await createChannel({ ctx: trusted, input: { kind: "webhook", name: "ops", url: hook.url, events: ["deploy.failed", "hook.failed", "crash_loop.started", "backup.failed"] } });
  secret = w.secret!;
  webhookId = w.id;
  emailId = (await createChannel({ ctx: trusted, input: { kind: "email", name: "mail", host: "127.0.0.1", port: smtp.port, from: "levelrail@example.com", to: ["ops@example.com"], events: ["deploy.failed"] } })).id;
}, 120_000);

afterAll(async () => {
  await hook?.close();
  await smtp?.close();
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const controller = (backoffMs: number[]) => notificationsController({ outbox: pgOutbox(db), keyring: org.kit.keyring, policy: { allowPrivate: true }, backoffMs, timeoutMs: 2000, log: (l) => logs.push(l) });
const attemptsMade = async () => Number((await db.select({ n: sum(notificationDelivery.attempts) }).from(notificationDelivery))[0]?.n ?? 0);
/**
 * The organization's outbox woken once (as the NOTIFY of a queued delivery wakes it) on a runner like
 * the worker's, until it is idle (a retry's delayed requeue does not count): how many attempts it made.
 */
async function wake(c: Controller): Promise<number> {
  const errors: RunnerEvent[] = [];
  const r = new Runner(c, { tenantOf: notificationTenants, log: (e) => (e.type === "error" || e.type === "terminal" ? errors.push(e) : undefined) });
  const before = await attemptsMade();
  r.enqueue(formatKey(notificationsKey(org.orgId)));
  await r.idle();
  await r.stop();
  expect(errors).toEqual([]);
  return (await attemptsMade()) - before;
}
const deliveriesOf = (channelId: string, event: string) =>
  db.select().from(notificationDelivery).where(and(eq(notificationDelivery.channelId, channelId), eq(notificationDelivery.event, event))).orderBy(notificationDelivery.createdAt);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A release of shop/web that failed with `message` (as the worker records it), reported like the worker does. */
async function failedRelease(message: string) {
  const rel = await deployService({ ctx: org, envId: org.envId, name: "web", input: {} });
  await db.update(release).set({ outcome: "failed", message, finishedAt: new Date() }).where(eq(release.id, rel.id));
  await pgFleetStore(db).recordDeploy(rel.id, "failed");
  return rel.id;
}

describe("a failed deploy", () => {
  it("enqueues deploy.failed once per subscribed channel; a 500 is retried after the backoff and delivered, signed", async () => {
    const releaseId = await failedRelease("readiness check failed after 60s");
    // Reported again (a later pass): still one delivery each.
    await pgFleetStore(db).recordDeploy(releaseId, "failed");
    const [queued] = await deliveriesOf(webhookId, "deploy.failed");
    expect((await deliveriesOf(webhookId, "deploy.failed")).length).toBe(1);
    expect((await deliveriesOf(emailId, "deploy.failed")).length).toBe(1);
    expect(queued!.payload).toMatchObject({
      event: "deploy.failed",
      organization: { id: org.orgId },
      project: { name: "default" },
      environment: { name: "production" },
      service: { name: "web", app: "shop" },
      release: { id: releaseId, image: "registry.example.com/shop:1.4.2", outcome: "failed" },
      message: "readiness check failed after 60s",
    });

    hook.answer(500);
    const d = controller([1500, 1500]);
    const before = hook.requests.length;
    expect(await wake(d)).toBe(2); // the webhook (500) and the email
    let [row] = await deliveriesOf(webhookId, "deploy.failed");
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastError: "127.0.0.1 answered 500" });
    // Not due yet: the pass sends nothing and asks to come back when the retry is due.
    const back = await d.reconcile(formatKey(notificationsKey(org.orgId)));
    expect(back?.requeueAfterMs).toBeGreaterThan(1000);
    expect(back?.requeueAfterMs).toBeLessThanOrEqual(1500);
    expect(await wake(d)).toBe(0);
    // Nor does the resync wake it: the pass's own requeue brings it back when the retry is due.
    expect(await pgOutbox(db).orgsWithWork()).toEqual([]);
    await sleep(1600);
    expect(await pgOutbox(db).orgsWithWork()).toEqual([org.orgId]);
    expect(await wake(d)).toBe(1);
    [row] = await deliveriesOf(webhookId, "deploy.failed");
    expect(row).toMatchObject({ status: "delivered", attempts: 2, lastError: "" });
    expect(hook.requests.length).toBe(before + 2);
    const got = hook.requests.at(-1)!;
    expect(validSignature(secret, got.body, got.headers["x-levelrail-signature"])).toBe(true);
    expect(got.headers["x-levelrail-event"]).toBe("deploy.failed");
    expect(JSON.parse(got.body.toString())).toMatchObject({ id: row!.id, event: "deploy.failed", service: { name: "web", app: "shop" } });

    const [mailRow] = await deliveriesOf(emailId, "deploy.failed");
    expect(mailRow).toMatchObject({ status: "delivered", attempts: 1 });
    const mail = smtp.mails.at(-1)!;
    expect(mailHeader(mail.raw, "subject")).toBe("[Levelrail] deploy failed: shop/web in production");
    expect(mailBody(mail.raw)).toContain("readiness check failed after 60s");
    expect(mailBody(mail.raw)).toContain("Image: registry.example.com/shop:1.4.2");
    // Nothing of the channel's secret in what was stored, sent or logged.
    const all = JSON.stringify(await db.select().from(notificationDelivery));
    for (const text of [all, got.body.toString(), mail.raw, logs.join("\n")]) expect(text.includes(secret)).toBe(false);
  });

  it("a 3xx is a failure naming it, never followed; after the last attempt the delivery is failed", async () => {
    const elsewhere = await webhookReceiver();
    try {
      hook.answer(301);
      hook.redirectTo(elsewhere.url);
      await failedRelease("hook failed");
      await wake(controller([]));
      const [row] = (await deliveriesOf(webhookId, "deploy.failed")).slice(-1);
      expect(row).toMatchObject({ status: "failed", attempts: 1, lastError: "127.0.0.1 answered 301 (a redirect); redirects are not followed" });
      expect(elsewhere.connections()).toBe(0);
    } finally {
      await elsewhere.close();
    }
  });
});

describe("other events", () => {
  it("a failed hook run enqueues hook.failed with its message, never its output", async () => {
    const rel = await deployService({ ctx: org, envId: org.envId, name: "web", input: {} });
    const hooks = pgHookRecorder(db);
    const run = await hooks.begin({ serviceId, releaseId: rel.id, phase: "pre", command: ["migrate"], attempt: "1" });
    await hooks.finish(run, { exitCode: 3, outcome: "failed", output: "the whole output\n", message: 'pre-deploy hook ["migrate"] failed with exit code 3' });
    const [d] = await deliveriesOf(webhookId, "hook.failed");
    expect(d!.payload).toMatchObject({ event: "hook.failed", hookRun: { id: run, phase: "pre-deploy" }, message: 'pre-deploy hook ["migrate"] failed with exit code 3' });
    expect(JSON.stringify(d!.payload).includes("the whole output")).toBe(false);
  });

  it("a crash loop (a service_event row) is enqueued once, however often the outbox is looked at", async () => {
    await db.insert(serviceEvent).values({ orgId: org.orgId, serviceId, kind: "crash_loop_started", detail: "restarted 5 times; last exit 1" });
    // The resync finds the organization (its crash loop, the hook.failed still pending) and wakes it.
    expect(await pgOutbox(db).orgsWithWork()).toEqual([org.orgId]);
    const d = controller([]);
    await wake(d);
    await wake(d);
    const rows = await deliveriesOf(webhookId, "crash_loop.started");
    expect(rows.length).toBe(1);
    expect(rows[0]).toMatchObject({ status: "delivered" });
    expect((rows[0]!.payload as unknown as NotificationPayload).message).toBe("restarted 5 times; last exit 1");
    const sent = hook.requests.filter((r) => r.headers["x-levelrail-event"] === "crash_loop.started");
    expect(sent.length).toBe(1);
    expect(JSON.parse(sent[0]!.body.toString())).toMatchObject({ event: "crash_loop.started", service: { name: "web" }, crashLoop: { id: expect.any(String) } });
  });

  it("a failed backup enqueues backup.failed with the change", async () => {
    const dbView = await createDatabase({ ctx: org, envId: org.envId, input: { name: "shop-db", engine: "postgres", version: "17" } });
    const [b] = await db.insert(backup).values({ orgId: org.orgId, databaseId: dbView.id, status: "running", step: "dumping", message: "" }).returning();
    await pgDatabaseStore(db, org.kit.keyring).updateBackup(b!.id, { status: "failed", step: null, message: "the dump failed: connection refused", finishedAt: new Date() });
    const [d] = await deliveriesOf(webhookId, "backup.failed");
    expect(d!.payload).toMatchObject({ event: "backup.failed", database: { id: dbView.id, name: "shop-db" }, backup: { id: b!.id, status: "failed" }, message: "the dump failed: connection refused" });
  });
});

describe("waking the outbox", () => {
  it("a queued delivery and a crash loop that starts wake the organization's key through NOTIFY, at their commit", async () => {
    const keys: ReconcileKey[] = [];
    const stop = await listenDesired(sql, (k) => keys.push(k));
    try {
      const want = notificationsKey(org.orgId);
      const woken = async () => {
        for (let i = 0; i < 100 && !keys.some((k) => formatKey(k) === formatKey(want)); i++) await sleep(20);
        return keys.splice(0).filter((k) => formatKey(k) === formatKey(want)).length;
      };
      await failedRelease("the readiness check failed");
      expect(await woken()).toBeGreaterThan(0);
      await pgServiceEvents(db).record({ orgId: org.orgId, serviceId, kind: "crash_loop_started", detail: "restarted 5 times" });
      expect(await woken()).toBeGreaterThan(0);
      // A crash loop that ends enqueues nothing and wakes nothing.
      await pgServiceEvents(db).record({ orgId: org.orgId, serviceId, kind: "crash_loop_ended", detail: "" });
      await sleep(300);
      expect(keys).toEqual([]);
    } finally {
      await stop();
    }
  });
});
