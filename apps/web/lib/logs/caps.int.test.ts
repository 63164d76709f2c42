import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dockerLogReader } from "@levelrail/docker/logs";
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { LevelrailError, errorHeaders, httpStatus } from "@levelrail/spec/errors";
import { ensureTestImage } from "@levelrail/testkit/images";
import { waitFor } from "@levelrail/testkit/wait";
import { seedOrg } from "@levelrail/testkit/seed";
import { setupSuite } from "@levelrail/worker/harness";
import { type LogCaps, StreamSlots, TRUNCATED_HEADER } from "./caps";
import { serviceLogs } from "./service-logs";
import { numberedImage, readEvents } from "./testing";

/**
 * The logs route's caps against the real engine, PostgreSQL and worker: a tail over the byte cap
 * keeps the newest lines and says so; live streams over a user's, an organization's or the installation's limit are
 * refused with a 429 and `Retry-After`, and a stream that ends (cancelled, aborted) frees its slot.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
const reader = dockerLogReader({ dockerHost: process.env.DOCKER_HOST });
const V1 = numberedImage("v1");
const timing = { pollMs: 100, idleMs: 500, pingMs: 60_000 };

const asUser = (userId: string) => ({ ...s.ctx, actor: { ...s.ctx.actor, userId } });
const logs = (caps: LogCaps, query: string, o: { userId?: string; name?: string; signal?: AbortSignal } = {}) =>
  serviceLogs({
    ctx: o.userId ? asUser(o.userId) : s.ctx,
    envId: s.ctx.envId,
    name: o.name ?? "web",
    reader,
    req: new Request(`http://panel.test/logs?${query}`, o.signal ? { signal: o.signal } : {}),
    caps,
    timing,
  });

/** What the route answers for a refusal: its status, `Retry-After` and message. */
async function refused(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    if (err instanceof LevelrailError) return { status: httpStatus(err.code), headers: errorHeaders(err), message: err.message };
    throw err;
  }
  throw new Error("expected a refusal");
}

beforeAll(async () => {
  s = await setupSuite("logcaps");
  await ensureTestImage(s.runtime.docker, V1);
  await s.startWorker({ drainMs: 0, probeIntervalMs: 100 });
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "web", app: "shop", image: V1.tag, port: 8080, healthPath: "/healthz" } });
  const r = await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: {} });
  await s.waitRelease("web", r.id);
}, 180_000);

afterAll(async () => {
  await s?.teardown();
});

describe("a tail over the byte cap", () => {
  it("keeps the newest lines within the cap and says how many it left out", async () => {
    const wide = { tailBytes: 1 << 20, slots: new StreamSlots({ perUser: 9, total: 9, retryAfterSeconds: 5 }) };
    // Enough lines printed that a 1 KiB cap cannot hold them all.
    const all = await waitFor("40 lines", async () => {
      const lines = (await (await logs(wide, "tail=10000")).json()) as { line: string }[];
      return lines.length >= 40 ? lines : undefined;
    });
    const capped = { ...wide, tailBytes: 1024 };
    const res = await logs(capped, "tail=10000");
    const text = await res.text();
    const lines = JSON.parse(text) as { line: string; at: string }[];
    expect(text.length).toBeLessThanOrEqual(1024);
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.length).toBeLessThan(all.length);
    // The newest: consecutive numbers ending at least where the earlier full read ended.
    const numbers = lines.map((l) => Number(l.line.split(" ")[1]));
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    expect(numbers.at(-1)).toBeGreaterThanOrEqual(Number(all.at(-1)!.line.split(" ")[1]));
    expect(Number(res.headers.get(TRUNCATED_HEADER))).toBeGreaterThanOrEqual(all.length - lines.length);
    // Under the cap: whole, and no header.
    const small = await logs(capped, "tail=2");
    expect(small.headers.get(TRUNCATED_HEADER)).toBeNull();
    expect(await small.json()).toHaveLength(2);
  });
});

describe("live streams", () => {
  it("refuses a user's stream over their limit with 429 and Retry-After; cancelling one frees its slot", async () => {
    const caps = { tailBytes: 1 << 20, slots: new StreamSlots({ perUser: 2, total: 3, retryAfterSeconds: 7 }) };
    const first = readEvents(await logs(caps, "follow=true&tail=1", { userId: "u1" }));
    const second = readEvents(await logs(caps, "follow=true&tail=1", { userId: "u1" }));
    await first.until((ev) => ev.some((e) => e.event === "line"));
    const third = await refused(logs(caps, "follow=true&tail=1", { userId: "u1" }));
    expect(third).toMatchObject({ status: 429, headers: { "retry-after": "7" } });
    expect(third.message).toContain("2 live log streams");
    // A tail (not live) is never counted.
    expect((await logs(caps, "tail=1", { userId: "u1" })).status).toBe(200);
    // Another user still gets one; then the installation's limit (3) refuses anyone.
    const other = readEvents(await logs(caps, "follow=true&tail=1", { userId: "u2" }));
    expect(await refused(logs(caps, "follow=true&tail=1", { userId: "u3" }))).toMatchObject({ status: 429, headers: { "retry-after": "7" } });
    expect(caps.slots.open()).toBe(3);
    // The client goes away: its slot comes back, and the user may open another.
    await first.close();
    await waitFor("the cancelled stream's slot", async () => (caps.slots.open("u1") === 1 ? true : undefined), { timeoutMs: 5000 });
    const again = readEvents(await logs(caps, "follow=true&tail=1", { userId: "u1" }));
    await again.until((ev) => ev.some((e) => e.event === "line"));
    for (const r of [second, other, again]) await r.close();
    await waitFor("every slot back", async () => (caps.slots.open() === 0 ? true : undefined), { timeoutMs: 5000 });
  });

  it("refuses a stream over its organization's limit (its members together) with 429 and Retry-After, so another organization still gets one (issue 42 follow-up)", async () => {
    const other = await seedOrg(s.db, "logcaps-b", s.kit);
    try {
      const b = { ...other, shortName: s.shortName };
      await createApp({ ctx: b, envId: b.envId, input: { name: "shop" } });
      // Never deployed: its stream waits for a container, holding its slot.
      await createService({ ctx: b, envId: b.envId, input: { name: "api", app: "shop", image: V1.tag, port: 8080, healthPath: "/healthz" } });
      const caps = { tailBytes: 1 << 20, slots: new StreamSlots({ perUser: 2, perOrg: 3, total: 5, retryAfterSeconds: 7 }) };
      const theirs = (userId: string) =>
        serviceLogs({ ctx: { ...b, actor: { ...b.actor, userId } }, envId: b.envId, name: "api", reader, req: new Request("http://panel.test/logs?follow=true&tail=1"), caps, timing });
      // Organization A's members hold its 3.
      const ours = [];
      for (const userId of ["u1", "u1", "u2"]) ours.push(readEvents(await logs(caps, "follow=true&tail=1", { userId })));
      expect(caps.slots.openIn(s.ctx.orgId)).toBe(3);
      const fourth = await refused(logs(caps, "follow=true&tail=1", { userId: "u3" }));
      expect(fourth).toMatchObject({ status: 429, headers: { "retry-after": "7" } });
      expect(fourth.message).toBe("follow: this organization already has 3 live log streams open (its members together); close one or try again later");
      // Organization B's members are not starved: the installation's 5 are not all A's.
      const b1 = readEvents(await theirs("b1"));
      const b2 = readEvents(await theirs("b2"));
      expect([caps.slots.openIn(other.orgId), caps.slots.open()]).toEqual([2, 5]);
      // One of A's closes: A may open one again.
      await ours[0]!.close();
      await waitFor("the closed stream's slot", async () => (caps.slots.openIn(s.ctx.orgId) === 2 ? true : undefined), { timeoutMs: 5000 });
      ours.push(readEvents(await logs(caps, "follow=true&tail=1", { userId: "u3" })));
      for (const r of [...ours.slice(1), b1, b2]) await r.close();
      await waitFor("every slot back", async () => (caps.slots.open() === 0 ? true : undefined), { timeoutMs: 5000 });
      expect([caps.slots.openIn(s.ctx.orgId), caps.slots.openIn(other.orgId)]).toEqual([0, 0]);
    } finally {
      await other.cleanup().catch(() => undefined);
    }
  });

  it("an aborted request frees its slot", async () => {
    const caps = { tailBytes: 1 << 20, slots: new StreamSlots({ perUser: 1, total: 1, retryAfterSeconds: 5 }) };
    const request = new AbortController();
    const r = readEvents(await logs(caps, "follow=true&tail=1", { userId: "u1", signal: request.signal }));
    await r.until((ev) => ev.some((e) => e.event === "line"));
    expect(await refused(logs(caps, "follow=true&tail=1", { userId: "u1" }))).toMatchObject({ status: 429 });
    request.abort();
    await waitFor("the aborted stream's slot", async () => (caps.slots.open() === 0 ? true : undefined), { timeoutMs: 5000 });
    const next = readEvents(await logs(caps, "follow=true&tail=1", { userId: "u1" }));
    await next.until((ev) => ev.some((e) => e.event === "line"));
    await next.close();
  });
});
