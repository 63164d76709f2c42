import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LogReader, dockerLogReader } from "@levelrail/docker/logs";
import { createApp } from "@levelrail/services/app/app";
import { putSecret } from "@levelrail/services/env/secrets";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { LevelrailError } from "@levelrail/spec/errors";
import { ensureTestImage } from "@levelrail/testkit/images";
import { seedOrg } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { setupSuite } from "@levelrail/worker/harness";
import { MAX_TAIL_BYTES, StreamSlots } from "./caps";
import { type ReadEvent, numberedImage, readEvents } from "./testing";
import { type LogContainerView, serviceLogContainers, serviceLogs } from "./service-logs";

/**
 * The logs route's logic against the real engine, PostgreSQL and worker: a service whose container
 * prints numbered lines is followed through a blue-green deploy; `?since=`, `?tail=`,
 * `?container=`, another organization's service, secret values.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
const reader = dockerLogReader({ dockerHost: process.env.DOCKER_HOST });
const TOKEN = `tok-${randomBytes(12).toString("hex")}`;
const V1 = numberedImage("v1");
const V2 = numberedImage("v2");
/** As fast as its shell prints (a line per `usleep 0`: about a thousand a second). */
const FAST = numberedImage("fast", { intervalMs: 0 });
const timing = { pollMs: 100, idleMs: 500, pingMs: 60_000 };
/** A PEM key (a multi-line secret), random so that no other text has its lines. */
const PEM = ["-----BEGIN PRIVATE KEY-----", ...Array.from({ length: 3 }, () => randomBytes(36).toString("base64")), "-----END PRIVATE KEY-----"].join("\n");
/**
 * Prints `$TOKEN` across the engine's 16 KiB boundary (the json-file driver cuts a longer line into
 * frames), then `$KEY` (a PEM key) as lines, then serves.
 */
const LEAKY = {
  tag: "levelrail-test/leaky:v1",
  body: "leaky\n",
  healthy: true,
  cmd: ["/bin/sh", "-c", '/bin/busybox httpd -p 8080 -h /www; pad=$(/bin/busybox head -c 16370 /dev/zero | /bin/busybox tr "\\0" x); echo "$pad$TOKEN after"; echo "$KEY"; echo done; while true; do /bin/busybox sleep 1; done'],
};
/** Limits this file never reaches (caps.int.test.ts tests them). */
const caps = { tailBytes: MAX_TAIL_BYTES, slots: new StreamSlots({ perUser: 1000, total: 1000, retryAfterSeconds: 5 }) };

const logs = (query: string, over: { ctx?: typeof s.ctx; name?: string } = {}) =>
  serviceLogs({ ctx: over.ctx ?? s.ctx, envId: s.ctx.envId, name: over.name ?? "web", reader, req: new Request(`http://panel.test/logs?${query}`), caps, timing });

async function deploy(name: string, image?: string) {
  const r = await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: image ? { image } : {} });
  await s.waitRelease(name, r.id);
  return r.id;
}

const containersOf = (name: string) => serviceLogContainers({ ctx: s.ctx, envId: s.ctx.envId, name, reader });
const activeOf = async (name: string): Promise<LogContainerView> => {
  const active = (await containersOf(name)).find((c) => c.active);
  if (!active) throw new Error(`${name} has no active container`);
  return active;
};

beforeAll(async () => {
  s = await setupSuite("logs");
  for (const img of [V1, V2, FAST, LEAKY]) await ensureTestImage(s.runtime.docker, img);
  // Drains for 2 s after the switch: the old container goes on printing past it.
  await s.startWorker({ drainMs: 2000, probeIntervalMs: 100 });
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  for (const [name, image] of [["web", V1.tag], ["other", V1.tag], ["fast", FAST.tag]] as const) {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "shop", image, port: 8080, healthPath: "/healthz" } });
  }
  await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name: "web", key: "TOKEN", input: { value: TOKEN } });
  await Promise.all([deploy("web"), deploy("other"), deploy("fast")]);
}, 180_000);

afterAll(async () => {
  await s?.teardown();
});

const numbersOf = (events: ReadEvent[], tag: string) =>
  events.flatMap((e) => (e.event === "line" && typeof e.data.line === "string" && e.data.line.startsWith(`${tag} `) ? [Number(e.data.line.slice(tag.length + 1))] : []));

describe("following a service through a blue-green deploy", () => {
  it("has the old container's numbers up to the switch, a marker, then every number of the new one from 1, none twice", async () => {
    const before = await activeOf("web");
    const res = await logs("follow=true&tail=10000");
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const stream = readEvents(res);
    await stream.until((ev) => numbersOf(ev, "v1").length >= 10);
    const release = await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: { image: V2.tag } });
    const after = await waitFor("the switch", async () => {
      const a = await activeOf("web").catch(() => null);
      return a && a.name !== before.name ? a : undefined;
    });
    // While the old container drains, it is listed and readable by name.
    const draining = (await containersOf("web")).find((c) => c.name === before.name);
    expect(draining).toMatchObject({ active: false, role: "service" });
    const drainingLines = (await (await logs(`container=${before.name}&tail=3`)).json()) as { container: string; line: string }[];
    expect(drainingLines.map((l) => l.container)).toEqual([before.name, before.name, before.name]);
    await s.waitRelease("web", release.id);
    const releaseId = release.id;
    // The new container printed 15 lines before it was ready; wait for some it printed after.
    const events = await stream.until((ev) => numbersOf(ev, "v2").length >= 40);
    await stream.close();

    const markers = events.filter((e) => e.event === "marker");
    expect(markers).toHaveLength(1);
    expect(markers[0]?.data).toMatchObject({ container: after.name, release: releaseId });
    expect(String(markers[0]?.data.text)).toContain(after.name);
    const cut = events.indexOf(markers[0]!);
    const lines = events.filter((e) => e.event === "line");
    const old = events.slice(0, cut).filter((e) => e.event === "line");
    const fresh = events.slice(cut + 1).filter((e) => e.event === "line");
    expect(old.every((e) => e.data.container === before.name)).toBe(true);
    expect(fresh.every((e) => e.data.container === after.name)).toBe(true);
    // Old: 1, 2, 3, … without a gap, each at or before the switch; nothing of it after the marker.
    const oldNumbers = numbersOf(old, "v1");
    expect(oldNumbers).toEqual(oldNumbers.map((_, i) => i + 1));
    expect(old.every((e) => String(e.data.at) <= String(markers[0]?.data.at))).toBe(true);
    expect(numbersOf(fresh, "v1")).toEqual([]);
    // New: from its very first line (printed while it was getting ready), none twice, none missing.
    const newNumbers = numbersOf(fresh, "v2");
    expect(newNumbers.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(newNumbers).toEqual(newNumbers.map((_, i) => i + 1));
    // The secret it printed at its start is hidden, in both containers' lines.
    expect(lines.filter((e) => String(e.data.line).startsWith("token="))).toHaveLength(2);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    expect(JSON.stringify(events)).toContain("token=[redacted]");
  });
});

describe("secrets in the lines", () => {
  it("are hidden across the engine's 16 KiB frames and a multi-line key's lines, and still after they are rotated", async () => {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "leaky", app: "shop", image: LEAKY.tag, port: 8080, healthPath: "/healthz" } });
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name: "leaky", key: "TOKEN", input: { value: TOKEN } });
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name: "leaky", key: "KEY", input: { value: PEM } });
    await deploy("leaky");
    const read = async () => {
      const lines = await waitFor("the leaky container's last line", async () => {
        const all = (await (await logs("tail=100", { name: "leaky" })).json()) as { line: string }[];
        return all.some((l) => l.line === "done") ? all : undefined;
      });
      return lines.map((l) => l.line);
    };
    const check = (lines: string[]) => {
      const text = lines.join("\n");
      expect(text.includes(TOKEN.slice(0, 12)) || text.includes(TOKEN.slice(-12))).toBe(false);
      for (const part of PEM.split("\n").slice(1, -1)) expect(text).not.toContain(part);
      expect(text).toContain("[redacted]");
    };
    const lines = await read();
    // The engine did cut the token's line: it comes as two lines.
    expect(lines.some((l) => l.startsWith("xxxx") && !l.endsWith(" after"))).toBe(true);
    expect(lines.some((l) => !l.startsWith("x") && l.endsWith(" after"))).toBe(true);
    check(lines);
    // Rotated (not deployed yet): the running container still has, and printed, the old values.
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name: "leaky", key: "TOKEN", input: { value: `new-${randomBytes(8).toString("hex")}` } });
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name: "leaky", key: "KEY", input: { value: `new-${randomBytes(8).toString("hex")}` } });
    check(await read());
  });
});

describe("reading without following", () => {
  it("?tail= gives the last lines, oldest first, as JSON", async () => {
    const res = await logs("tail=5");
    const body = (await res.json()) as { container: string; stream: string; at: string; line: string }[];
    expect(body).toHaveLength(5);
    const numbers = body.map((l) => Number(l.line.split(" ")[1]));
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    expect(body[0]).toMatchObject({ container: (await activeOf("web")).name, stream: "stdout" });
  });

  it("?since= starts at that time (the engine's, to the nanosecond) and at a duration ago", async () => {
    const all = (await (await logs("tail=10000")).json()) as { at: string; line: string }[];
    const from = all[all.length - 8]!;
    const since = (await (await logs(`since=${from.at}&tail=10000`)).json()) as { at: string; line: string }[];
    expect(since[0]).toEqual(from);
    expect(since.length).toBeGreaterThanOrEqual(8);
    const recent = (await (await logs("since=2s&tail=10000")).json()) as { at: string }[];
    expect(recent.length).toBeGreaterThan(5);
    expect(recent.length).toBeLessThan(40);
    expect(recent.every((l) => Date.parse(l.at) >= Date.now() - 5000)).toBe(true);
  });

  it("refuses a bad ?since= or ?tail= with a 400 naming it", async () => {
    await expect(logs("since=soon")).rejects.toMatchObject({ code: "invalid_input", field: "since" });
    await expect(logs("tail=10001")).rejects.toMatchObject({ code: "invalid_input", field: "tail" });
  });
});

describe("scoping", () => {
  it("another organization's service is a 404, like one that does not exist", async () => {
    const b = await seedOrg(s.db, "logs-other", s.kit);
    try {
      const err = await logs("tail=5", { ctx: { ...b, shortName: s.shortName } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LevelrailError);
      expect(err).toMatchObject({ code: "not_found" });
      await expect(logs("tail=5", { name: "nope" })).rejects.toMatchObject({ code: "not_found" });
    } finally {
      await b.cleanup();
    }
  });

  it("?container= of another service (or any other name) is a 404", async () => {
    const others = (await activeOf("other")).name;
    await expect(logs(`container=${others}`)).rejects.toMatchObject({ code: "not_found", field: "container" });
    await expect(logs("container=not-a-container")).rejects.toMatchObject({ code: "not_found" });
    // Its own service reads it.
    const res = await logs(`container=${others}&tail=2`, { name: "other" });
    expect(((await res.json()) as unknown[]).length).toBe(2);
  });

  it("a client that goes away (the stream cancelled, or the request aborted) ends the engine stream behind it", async () => {
    let open = 0;
    const counting: LogReader = {
      containers: (filter) => reader.containers(filter),
      env: (id) => reader.env(id),
      async *lines(id, o) {
        open++;
        try {
          yield* reader.lines(id, o);
        } finally {
          open--;
        }
      },
    };
    const follow = (signal?: AbortSignal) =>
      serviceLogs({ ctx: s.ctx, envId: s.ctx.envId, name: "web", reader: counting, req: new Request("http://panel.test/logs?follow=true&tail=1", signal ? { signal } : {}), caps, timing });
    const closed = readEvents(await follow());
    await closed.until((ev) => ev.some((e) => e.event === "line"));
    expect(open).toBe(1);
    await closed.close();
    await waitFor("the engine stream to end after the client cancelled", async () => (open === 0 ? true : undefined), { timeoutMs: 5000 });

    const request = new AbortController();
    const aborted = readEvents(await follow(request.signal));
    await aborted.until((ev) => ev.some((e) => e.event === "line"));
    expect(open).toBe(1);
    request.abort();
    await waitFor("the engine stream to end after the request was aborted", async () => (open === 0 ? true : undefined), { timeoutMs: 5000 });
  });

  it("a client that reads nothing holds the engine stream back: a container printing at full speed is not read ahead", async () => {
    let pulled = 0;
    const counting: LogReader = {
      containers: (filter) => reader.containers(filter),
      env: (id) => reader.env(id),
      async *lines(id, o) {
        for await (const l of reader.lines(id, o)) {
          pulled++;
          yield l;
        }
      },
    };
    const res = await serviceLogs({ ctx: s.ctx, envId: s.ctx.envId, name: "fast", reader: counting, req: new Request("http://panel.test/logs?follow=true&tail=0"), caps, timing });
    const stream = readEvents(res);
    await stream.until((ev) => ev.filter((e) => e.event === "line").length >= 50);
    const read = stream.events.length;
    const before = pulled;
    // The client stops reading for 2 s while the container prints a line a millisecond or so.
    await new Promise((r) => setTimeout(r, 2000));
    expect(pulled - before).toBeLessThanOrEqual(5);
    // Reading again goes on where it stopped, in order, nothing skipped.
    await stream.until((ev) => ev.length >= read + 200);
    const numbers = stream.events.flatMap((e) => (e.event === "line" ? [Number(String(e.data.line).split(" ")[1])] : []));
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    await stream.close();
  });
});
