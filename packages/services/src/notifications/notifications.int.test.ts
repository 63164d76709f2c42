// Notification channels against the real PostgreSQL, a real HTTP receiver and a real SMTP server on
// loopback: the signing secret is shown once and signs every body, "Send test" answers its outcome,
// private targets are refused without connecting unless the installation allows them
// (LEVELRAIL_ALLOW_PRIVATE_TARGETS: `ctx.allowPrivateTargets`), failures never repeat what the remote
// side said, and another organization's channel is a 404.
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { notificationChannel, notificationDelivery } from "@levelrail/db/schema/notifications";
import { payloadOf } from "@levelrail/spec/notifications";
import { DEFAULT_QUOTAS } from "@levelrail/spec/quotas";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { mailBody, mailHeader, smtpReceiver, validSignature, webhookReceiver } from "@levelrail/testkit/receivers";
import { seedOrg } from "@levelrail/testkit/seed";
import { createChannel, deleteChannel, getChannel, listChannels, patchChannel } from "./channels";
import { listDeliveries, sendTest } from "./deliveries";
import { setOrgQuotas } from "../org/quota";
import { deliver } from "./send";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
/** The installation's default: private targets refused. */
let org: Awaited<ReturnType<typeof seedOrg>>;
/** The same organization on an installation that allows private targets (as `npm test` runs). */
let trusted: Awaited<ReturnType<typeof seedOrg>> & { allowPrivateTargets: true };
let other: Awaited<ReturnType<typeof seedOrg>>;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "notify");
  ({ db, sql } = createDb(database.url));
  org = { ...(await seedOrg(db, "notify")), panelHost: "panel.example.com" };
  trusted = { ...org, allowPrivateTargets: true };
  other = await seedOrg(db, "notify-other");
  hook = await webhookReceiver();
}, 120_000);

afterAll(async () => {
  await hook?.close();
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: { code?: string; message?: string; field?: string }) => err,
  );
const channels = async () => (await db.select({ n: count() }).from(notificationChannel))[0]!.n;

describe("a webhook channel", () => {
  it("shows its secret once, signs the test it sends with it, and logs the delivery", async () => {
    const created = await createChannel({ ctx: trusted, input: { kind: "webhook", name: "ops", url: hook.url, events: ["deploy.failed"] } });
    const secret = created.secret!;
    // Boolean checks: a failing assertion never prints a secret.
    expect(/^lrwh_[A-Za-z0-9_-]{43}$/.test(secret)).toBe(true);
    // Never again: not in the list, not in one channel, not in the row (sealed only).
    expect(JSON.stringify(await listChannels({ ctx: org })).includes(secret)).toBe(false);
    expect(JSON.stringify(await getChannel({ ctx: org, id: created.id })).includes(secret)).toBe(false);
    const [row] = await db.select().from(notificationChannel).where(eq(notificationChannel.id, created.id));
    expect(JSON.stringify(row).includes(secret)).toBe(false);
    expect(org.kit.keyring.open(row!.secretSealed!) === secret).toBe(true);

    const before = hook.requests.length;
    const test = await sendTest({ ctx: trusted, id: created.id });
    expect(test).toMatchObject({ status: "delivered", attempts: 1, lastError: "", event: "test" });
    const got = hook.requests[before]!;
    expect(got.path).toBe("/hooks/levelrail");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(validSignature(secret, got.body, got.headers["x-levelrail-signature"])).toBe(true);
    expect(validSignature("another secret", got.body, got.headers["x-levelrail-signature"])).toBe(false);
    const body = JSON.parse(got.body.toString()) as Record<string, unknown>;
    expect(body).toMatchObject({ id: test.id, event: "test", organization: { id: org.orgId } });
    expect(got.body.toString().includes(secret)).toBe(false);

    const log = await listDeliveries({ ctx: org, id: created.id });
    expect(log.map((d) => [d.id, d.status])).toEqual([[test.id, "delivered"]]);
    expect(JSON.stringify(log).includes(secret)).toBe(false);
  });

  it("a Slack-format channel sends {text}", async () => {
    const c = await createChannel({ ctx: trusted, input: { kind: "webhook", name: "slack", url: hook.url, format: "slack", events: ["deploy.succeeded"] } });
    const before = hook.requests.length;
    expect((await sendTest({ ctx: trusted, id: c.id })).status).toBe("delivered");
    const body = JSON.parse(hook.requests[before]!.body.toString()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["text"]);
    expect(body.text).toContain("*test notification for");
  });

  it("a test to a receiver answering 500 is failed, naming the status and nothing the receiver said", async () => {
    const c = await createChannel({ ctx: trusted, input: { kind: "webhook", name: "flaky", url: hook.url, events: ["deploy.failed"] } });
    hook.answer(500);
    expect(await sendTest({ ctx: trusted, id: c.id })).toMatchObject({ status: "failed", lastError: "127.0.0.1 answered 500" });
  });

  it("does not follow a redirect: the 3xx is the failure", async () => {
    const elsewhere = await webhookReceiver();
    try {
      const c = await createChannel({ ctx: trusted, input: { kind: "webhook", name: "moved", url: hook.url, events: ["deploy.failed"] } });
      hook.answer(302);
      hook.redirectTo(elsewhere.url);
      const test = await sendTest({ ctx: trusted, id: c.id });
      expect(test).toMatchObject({ status: "failed" });
      expect(test.lastError).toBe("127.0.0.1 answered 302 (a redirect); redirects are not followed");
      expect(elsewhere.connections()).toBe(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("refuses loopback, private, link-local and the panel's own URLs by default: 400 naming url, nothing written, nothing connected", async () => {
    const before = await channels();
    const connections = hook.connections();
    for (const url of [
      hook.url,
      `http://localhost:${hook.port}/`,
      `http://[::1]:${hook.port}/`,
      "http://10.1.2.3/x",
      "http://192.168.0.10/x",
      "http://169.254.169.254/latest/meta-data",
      "http://[fd00::1]/x",
      "http://[::127.0.0.1]/x",
      "http://[64:ff9b:1::a9fe:a9fe]/x",
      "http://0.0.0.0/",
      "https://panel.example.com/hook",
    ]) {
      const err = await refusal(createChannel({ ctx: org, input: { kind: "webhook", name: "bad", url, events: ["deploy.failed"] } }));
      expect(err, url).toMatchObject({ code: "invalid_input", field: "url" });
    }
    expect(await refusal(createChannel({ ctx: org, input: { kind: "webhook", name: "bad", url: "ftp://example.com/", events: ["deploy.failed"] } }))).toMatchObject({ field: "url" });
    expect(await channels()).toBe(before);
    expect(hook.connections()).toBe(connections);
  });

  it("private targets are the installation's setting, never a channel's: allowPrivate is a 400 naming it", async () => {
    const before = await channels();
    const input = { kind: "webhook", name: "sneaky", url: hook.url, allowPrivate: true, events: ["deploy.failed"] };
    expect(await refusal(createChannel({ ctx: org, input }))).toMatchObject({ code: "invalid_input", field: "allowPrivate" });
    expect(await refusal(createChannel({ ctx: trusted, input: { ...input, url: "https://hooks.example.com/x" } }))).toMatchObject({ field: "allowPrivate" });
    expect(await channels()).toBe(before);
    const c = await createChannel({ ctx: org, input: { kind: "webhook", name: "public", url: "https://hooks.example.com/x", events: ["deploy.failed"] } });
    expect(c).not.toHaveProperty("allowPrivate");
    expect(await refusal(patchChannel({ ctx: org, id: c.id, input: { allowPrivate: true } }))).toMatchObject({ field: "allowPrivate" });
    expect(await refusal(patchChannel({ ctx: org, id: c.id, input: { url: hook.url } }))).toMatchObject({ field: "url" });
    expect(await refusal(patchChannel({ ctx: org, id: c.id, input: { kind: "email" } }))).toMatchObject({ field: "kind" });
    // Where the installation allows private targets, the same patch passes.
    expect(await patchChannel({ ctx: trusted, id: c.id, input: { url: hook.url, events: ["backup.failed"] } })).toMatchObject({ url: hook.url, events: ["backup.failed"] });
  });

  it("a channel made while private targets were allowed is refused at delivery once they are not, without connecting", async () => {
    const c = await createChannel({ ctx: trusted, input: { kind: "webhook", name: "was-allowed", url: hook.url, events: ["deploy.failed"] } });
    const connections = hook.connections();
    const test = await sendTest({ ctx: org, id: c.id });
    expect(test).toMatchObject({ status: "failed" });
    expect(test.lastError).toBe("127.0.0.1 is a loopback address; refused (private targets are allowed only by the installation's LEVELRAIL_ALLOW_PRIVATE_TARGETS)");
    expect(hook.connections()).toBe(connections);
    expect((await sendTest({ ctx: trusted, id: c.id })).status).toBe("delivered");
  });

  it("refuses, at delivery, a name that resolves to a private address, without connecting", async () => {
    const c = await createChannel({ ctx: org, input: { kind: "webhook", name: "dns", url: `http://hooks.example.com:${hook.port}/x`, events: ["deploy.failed"] } });
    const [row] = await db.select().from(notificationChannel).where(eq(notificationChannel.id, c.id));
    const connections = hook.connections();
    const out = await deliver(row!, "d1", payloadOf("test", { id: org.orgId, name: "o" }, "m", new Date()), {
      keyring: org.kit.keyring,
      policy: { allowPrivate: false, lookup: async () => [{ address: "127.0.0.1", family: 4 }] },
    });
    expect(out).toEqual({
      ok: false,
      error: "hooks.example.com resolves to 127.0.0.1, a loopback address; refused (private targets are allowed only by the installation's LEVELRAIL_ALLOW_PRIVATE_TARGETS)",
    });
    expect(hook.connections()).toBe(connections);
  });

  it("answers another organization's channel as not found, for every verb", async () => {
    const c = await createChannel({ ctx: trusted, input: { kind: "webhook", name: "mine", url: hook.url, events: ["deploy.failed"] } });
    const requests = hook.requests.length;
    for (const call of [
      () => getChannel({ ctx: other, id: c.id }),
      () => patchChannel({ ctx: other, id: c.id, input: { name: "theirs" } }),
      () => sendTest({ ctx: other, id: c.id }),
      () => listDeliveries({ ctx: other, id: c.id }),
      () => deleteChannel({ ctx: other, id: c.id }),
      () => getChannel({ ctx: other, id: "not-a-uuid" }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: "not_found" });
    }
    expect(JSON.stringify(await listChannels({ ctx: other }))).toBe("[]");
    expect(hook.requests.length).toBe(requests);
    expect((await getChannel({ ctx: org, id: c.id })).name).toBe("mine");
    await deleteChannel({ ctx: org, id: c.id });
    expect(await refusal(getChannel({ ctx: org, id: c.id }))).toMatchObject({ code: "not_found" });
  });
});

describe("an email channel", () => {
  it("sends over SMTP with its sealed password: the right subject, body and recipients; the password is never answered", async () => {
    const password = `smtp-pw-${Math.random().toString(36).slice(2)}`;
    const smtp = await smtpReceiver({ username: "levelrail", password }, { authError: "no such user on mail-7.corp.internal" });
    try {
      const c = await createChannel({
        ctx: trusted,
        input: { kind: "email", name: "mail", host: "127.0.0.1", port: smtp.port, username: "levelrail", password, from: "levelrail@example.com", to: ["ops@example.com", "oncall@example.com"], events: ["deploy.failed"] },
      });
      expect(c).toMatchObject({ kind: "email", passwordSet: true });
      expect(JSON.stringify(c).includes(password)).toBe(false);
      const test = await sendTest({ ctx: trusted, id: c.id });
      expect(test).toMatchObject({ status: "delivered" });
      const mail = smtp.mails.at(-1)!;
      expect(mail.user).toBe("levelrail");
      expect(mail.to).toEqual(["ops@example.com", "oncall@example.com"]);
      expect(mailHeader(mail.raw, "subject")).toMatch(/^\[Levelrail\] test notification for notify-/);
      expect(mailBody(mail.raw)).toContain("A test notification for channel mail: it works.");
      expect(mail.raw.includes(password)).toBe(false);

      // A wrong password is a failed delivery naming the server and the reply code, never the
      // password nor what the server said.
      await patchChannel({ ctx: trusted, id: c.id, input: { password: `${password}-wrong` } });
      const bad = await sendTest({ ctx: trusted, id: c.id });
      expect(bad.status).toBe("failed");
      expect(bad.lastError).toBe(`SMTP 127.0.0.1:${smtp.port} refused the login (check the username and password) (SMTP 535)`);
      expect(bad.lastError.includes(password)).toBe(false);
      const stored = await db.select().from(notificationDelivery).where(eq(notificationDelivery.channelId, c.id));
      expect(JSON.stringify(stored).includes(password)).toBe(false);
    } finally {
      await smtp.close();
    }
  });

  it("refuses a private SMTP host by default: 400 naming host; at delivery, a name resolving to one, without connecting", async () => {
    const smtp = await smtpReceiver();
    try {
      const input = { kind: "email", name: "inside", host: "127.0.0.1", port: smtp.port, from: "levelrail@example.com", to: ["ops@example.com"], events: ["deploy.failed"] };
      for (const host of ["127.0.0.1", "localhost", "169.254.169.254", "[::127.0.0.1]", "10.0.0.25", "panel.example.com"]) {
        expect(await refusal(createChannel({ ctx: org, input: { ...input, host } })), host).toMatchObject({ code: "invalid_input", field: "host" });
      }
      const c = await createChannel({ ctx: trusted, input });
      expect(await refusal(patchChannel({ ctx: org, id: c.id, input: { name: "renamed" } }))).toMatchObject({ field: "host" });
      const mails = smtp.mails.length;
      expect((await sendTest({ ctx: org, id: c.id })).lastError).toContain("127.0.0.1 is a loopback address; refused");
      const [row] = await db.select().from(notificationChannel).where(eq(notificationChannel.id, c.id));
      const viaName = { ...row!, config: { ...row!.config, host: "smtp.example.com" } };
      const out = await deliver(viaName, "d2", payloadOf("test", { id: org.orgId, name: "o" }, "m", new Date()), {
        keyring: org.kit.keyring,
        policy: { allowPrivate: false, lookup: async () => [{ address: "127.0.0.1", family: 4 }] },
      });
      expect(out).toMatchObject({ ok: false, error: expect.stringContaining("smtp.example.com resolves to 127.0.0.1, a loopback address; refused") });
      expect(smtp.mails.length).toBe(mails);
      expect((await sendTest({ ctx: trusted, id: c.id })).status).toBe("delivered");
      expect(smtp.mails.length).toBe(mails + 1);
    } finally {
      await smtp.close();
    }
  });

  it("a failure never repeats the server's greeting: a fixed message and the reply code", async () => {
    // Not an SMTP server: an internal service whose banner says what it is.
    const banner = createServer((socket) => socket.end("554 redis-internal-7 secret banner\r\n"));
    await new Promise<void>((resolve) => banner.listen(0, "127.0.0.1", resolve));
    try {
      const port = (banner.address() as AddressInfo).port;
      const c = await createChannel({ ctx: trusted, input: { kind: "email", name: "banner", host: "127.0.0.1", port, from: "a@example.com", to: ["b@example.com"], events: ["deploy.failed"] } });
      const test = await sendTest({ ctx: trusted, id: c.id, timeoutMs: 5000 });
      expect(test.status).toBe("failed");
      expect(test.lastError).toMatch(new RegExp(`^SMTP 127\\.0\\.0\\.1:${port} `));
      expect(test.lastError).not.toContain("redis");
      expect(test.lastError).not.toContain("banner");
    } finally {
      await new Promise<void>((resolve) => banner.close(() => resolve()));
    }
  });

  it("refuses bad input naming the field", async () => {
    const base = { kind: "email", name: "m", host: "smtp.example.com", port: 25, from: "a@example.com", to: ["b@example.com"], events: ["backup.failed"] };
    expect(await refusal(createChannel({ ctx: org, input: { ...base, to: ["not an address"] } }))).toMatchObject({ field: "to.0" });
    expect(await refusal(createChannel({ ctx: org, input: { ...base, port: 70000 } }))).toMatchObject({ field: "port" });
    expect(await refusal(createChannel({ ctx: org, input: { ...base, events: ["deploy.exploded"] } }))).toMatchObject({ field: "events.0" });
    expect(await refusal(createChannel({ ctx: org, input: { ...base, kind: "pigeon" } }))).toMatchObject({ code: "invalid_input" });
  });
});

describe("the channels quota", () => {
  it("refuses a channel beyond the organization's quota (409 quota_exceeded naming channels, nothing written) until it is raised", async () => {
    const q = { ...(await seedOrg(db, "notify-quota")), quotas: { ...DEFAULT_QUOTAS, channels: 2 } };
    const input = (name: string) => ({ kind: "webhook", name, url: "https://hooks.example.com/x", events: ["deploy.failed"] });
    await createChannel({ ctx: q, input: input("a") });
    await createChannel({ ctx: q, input: { kind: "email", name: "b", host: "smtp.example.com", port: 587, from: "a@example.com", to: ["b@example.com"], events: ["deploy.failed"] } });
    const before = await channels();
    expect(await refusal(createChannel({ ctx: q, input: input("c") }))).toMatchObject({ code: "quota_exceeded", message: expect.stringContaining("channels (2)") });
    expect(await channels()).toBe(before);
    // The installation's administrator raises it: levelrail quota set --org ID --channels 3.
    await setOrgQuotas(db, q.orgId, { channels: 3 }, q.quotas);
    await createChannel({ ctx: q, input: input("c") });
    expect((await listChannels({ ctx: q })).map((c) => c.name)).toEqual(["a", "b", "c"]);
  });
});
