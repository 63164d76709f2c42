import { describe, expect, it } from "vitest";
import type { LogContainer, LogLine, LogReader, LogReadOptions } from "@levelrail/docker/logs";
import { type FollowPorts, type LogEvent, followContainer, followService } from "./follow";
import { containerSecrets } from "./secrets";

/** A tiny engine: containers with lines that tests append to; a followed read waits for more. */
class FakeLogs implements LogReader {
  list: LogContainer[] = [];
  private logs = new Map<string, LogLine[]>();
  private stopped = new Set<string>();
  private envs = new Map<string, Record<string, string>>();
  private wake: (() => void)[] = [];
  opened: { id: string; opts: Omit<LogReadOptions, "signal"> }[] = [];

  add(name: string, release: string, o: { env?: Record<string, string>; labels?: Record<string, string> } = {}) {
    this.list.push({ id: `id-${name}`, name, state: "running", status: "Up", labels: { "levelrail.release": release, ...o.labels }, createdAt: 0 });
    this.logs.set(`id-${name}`, []);
    this.envs.set(`id-${name}`, o.env ?? {});
  }
  print(name: string, sec: number, line: string, partial = false) {
    this.logs.get(`id-${name}`)?.push({ stream: "stdout", at: at(sec), line, ...(partial ? { partial: true as const } : {}) });
    this.notify();
  }
  async env(id: string) {
    return this.envs.get(id) ?? {};
  }
  stop(name: string) {
    this.stopped.add(`id-${name}`);
    const c = this.list.find((x) => x.name === name);
    if (c) c.state = "exited";
    this.notify();
  }
  private notify() {
    for (const w of this.wake.splice(0)) w();
  }
  async containers() {
    return this.list.map((c) => ({ ...c }));
  }
  async *lines(id: string, o: LogReadOptions): AsyncGenerator<LogLine> {
    const { signal: _s, ...opts } = o;
    this.opened.push({ id, opts });
    const all = this.logs.get(id) ?? [];
    let from = o.since ? all.findIndex((l) => l.at >= (o.since ?? "")) : 0;
    if (from < 0) from = all.length;
    if (o.tail !== undefined) from = Math.max(from, all.length - o.tail);
    for (let i = from; ; ) {
      while (i < all.length) yield all[i++]!;
      if (!o.follow || this.stopped.has(id) || o.signal?.aborted) return;
      await new Promise<void>((resolve) => {
        this.wake.push(resolve);
        o.signal?.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }
}

/** Times a minute ahead: lines newer than any look-up so far, as fresh lines are. */
const BASE = Math.floor(Date.now() / 1000) * 1000 + 60_000;
const at = (sec: number) => new Date(BASE + sec * 1000).toISOString().replace(".000Z", ".000000000Z");

function setup(secret = "") {
  const engine = new FakeLogs();
  const state = { active: null as string | null, liveAt: new Map<string, number>() };
  const ports: FollowPorts = {
    reader: engine,
    labelFilter: [],
    active: async () => ({ container: state.active, at: null }),
    liveAt: async (id) => {
      const s = state.liveAt.get(id);
      return s === undefined ? null : new Date(Date.parse(at(s)));
    },
    secretsOf: (c) => containerSecrets(engine, c, secret ? [{ key: "TOKEN", value: secret }] : []),
    holdMs: 20,
    pollMs: 5,
    idleMs: 30,
    pingMs: 60_000,
  };
  return { engine, state, ports };
}

/** Reads events until `until` holds for them (or fails after 2 s). */
async function take(gen: AsyncGenerator<LogEvent>, events: LogEvent[], until: (e: LogEvent[]) => boolean) {
  const deadline = Date.now() + 2000;
  while (!until(events)) {
    if (Date.now() > deadline) throw new Error(`timed out with ${JSON.stringify(events)}`);
    const r = await gen.next();
    if (r.done) return;
    events.push(r.value);
  }
}

const lines = (events: LogEvent[]) => events.map((e) => (e.type === "line" ? `${e.container}:${e.line}` : e.type === "marker" ? `marker:${e.container}:${e.release}` : "ping"));

describe("followService", () => {
  it("ends the old container's lines at the switch, marks it, then gives the new one's from its first line", async () => {
    const { engine, state, ports } = setup();
    engine.add("old", "r1");
    state.active = "old";
    engine.print("old", 1, "a1");
    engine.print("old", 2, "a2");
    const abort = new AbortController();
    const gen = followService(ports, { since: null, tail: 500 }, abort.signal);
    const events: LogEvent[] = [];
    await take(gen, events, (e) => e.length === 2);
    // The new container gets ready while the old one serves; both print.
    engine.add("new", "r2");
    engine.print("new", 3, "b1");
    engine.print("old", 4, "a3");
    engine.print("new", 5, "b2");
    // The switch at 6; the old one goes on printing while it drains, after the switch.
    state.liveAt.set("r2", 6);
    engine.print("old", 7, "a4 (after the switch)");
    state.active = "new";
    await take(gen, events, (e) => e.some((x) => x.type === "line" && x.line === "b2"));
    engine.print("new", 8, "b3");
    engine.stop("old");
    await take(gen, events, (e) => e.some((x) => x.type === "line" && x.line === "b3"));
    abort.abort();
    expect(lines(events)).toEqual(["old:a1", "old:a2", "old:a3", "marker:new:r2", "new:b1", "new:b2", "new:b3"]);
    expect(events.find((e) => e.type === "marker")).toMatchObject({ at: at(6), text: "switched to new (release r2)" });
    expect((await gen.next()).done).toBe(true);
    // The new container was read from its start, not from its tail or the switch.
    expect(engine.opened).toEqual([
      { id: "id-old", opts: { follow: true, tail: 500 } },
      { id: "id-new", opts: { follow: true } },
    ]);
  });

  it("after two switches before it caught up, follows the one in between too: nothing skipped", async () => {
    const { engine, state, ports } = setup();
    engine.add("a", "r1");
    state.liveAt.set("r1", 0);
    state.active = "a";
    engine.print("a", 1, "a1");
    const abort = new AbortController();
    const gen = followService(ports, { since: null, tail: 500 }, abort.signal);
    const events: LogEvent[] = [];
    await take(gen, events, (e) => e.length === 1);
    engine.add("b", "r2");
    engine.print("b", 2, "b1");
    state.liveAt.set("r2", 3);
    engine.print("b", 4, "b2");
    engine.add("c", "r3");
    engine.print("c", 5, "c1");
    state.liveAt.set("r3", 6);
    engine.print("b", 7, "b3 (after its switch)");
    state.active = "c";
    await take(gen, events, (e) => e.some((x) => x.type === "line" && x.line === "c1"));
    abort.abort();
    expect(lines(events)).toEqual(["a:a1", "marker:b:r2", "b:b1", "b:b2", "marker:c:r3", "c:c1"]);
  });

  it("reads a container the engine restarted again from its last line, sending none twice", async () => {
    const { engine, state, ports } = setup();
    engine.add("web", "r1");
    state.active = "web";
    engine.print("web", 1, "one");
    engine.print("web", 1, "one again, same time");
    const abort = new AbortController();
    const gen = followService(ports, { since: null, tail: 10 }, abort.signal);
    const events: LogEvent[] = [];
    await take(gen, events, (e) => e.length === 2);
    engine.stop("web");
    await new Promise((r) => setTimeout(r, 30)); // its logs end while it is stopped
    // Restarted: its logs are one history; the read starts again at the last time sent.
    const c = engine.list[0]!;
    c.state = "running";
    (engine as unknown as { stopped: Set<string> }).stopped.delete(c.id);
    engine.print("web", 2, "two");
    await take(gen, events, (e) => e.length === 3);
    abort.abort();
    expect(lines(events)).toEqual(["web:one", "web:one again, same time", "web:two"]);
    expect(engine.opened[1]).toEqual({ id: "id-web", opts: { follow: true, since: at(1) } });
  });

  it("waits for a first container, applies since and tail to it, and redacts secret values", async () => {
    const { engine, state, ports } = setup("hunter2-secret");
    const abort = new AbortController();
    const gen = followService(ports, { since: at(2), tail: 1 }, abort.signal);
    const events: LogEvent[] = [];
    const first = take(gen, events, (e) => e.length === 1);
    engine.add("web", "r1");
    engine.print("web", 1, "too early");
    engine.print("web", 2, "skipped by tail");
    engine.print("web", 3, "password=hunter2-secret");
    state.active = "web";
    await first;
    abort.abort();
    expect(lines(events)).toEqual(["web:password=[redacted]"]);
  });

  it("redacts a multi-line key, a value cut into frames, its JSON and base64 forms, and the container's own rotated and removed secrets", async () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7xyz\n-----END PRIVATE KEY-----";
    const long = `tok-${"z".repeat(60)}-end`;
    const { engine, ports } = setup("current-secret");
    // Deployed before TOKEN was rotated (it still has the old value) and with OLD_KEY, a secret since removed.
    engine.add("web", "r1", { env: { TOKEN: "rotated-away-secret", OLD_KEY: pem, LONG: long, PLAIN: "visible" }, labels: { "levelrail.secret-keys": "LONG,OLD_KEY,TOKEN" } });
    for (const [i, l] of pem.split("\n").entries()) engine.print("web", 1 + i / 10, l);
    engine.print("web", 2, `start ${long.slice(0, 30)}`, true);
    engine.print("web", 2.1, `${long.slice(30)} done`);
    engine.print("web", 3, `json ${JSON.stringify({ key: pem })} b64 ${Buffer.from(`u:${long}`).toString("base64")}`);
    engine.print("web", 4, "old rotated-away-secret new current-secret plain visible");
    engine.print("web", 5, "-----BEGIN PRIVATE KEY-----"); // the start of the key, and then nothing: sent after holdMs
    engine.stop("web");
    const events: LogEvent[] = [];
    for await (const e of followContainer(ports, engine.list[0]!, { since: null, tail: 100, follow: false }, new AbortController().signal)) events.push(e);
    const text = lines(events).join("\n");
    for (const secret of ["rotated-away-secret", "current-secret", long.slice(4, 40), ...pem.split("\n").slice(1, 3), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", Buffer.from(long).toString("base64").slice(4, 30)]) {
      expect(text).not.toContain(secret);
    }
    expect(lines(events)).toEqual([
      "web:[redacted]",
      "web:[redacted]",
      "web:[redacted]",
      "web:[redacted]",
      "web:start [redacted]",
      "web:[redacted] done",
      'web:json {"key":"[redacted]"} b64 dTp[redacted]A==', // the last base64 characters also depend on what followed
      "web:old [redacted] new [redacted] plain visible",
      "web:-----BEGIN PRIVATE KEY-----",
    ]);
    expect(events.every((e) => e.type !== "line" || !("partial" in e))).toBe(true);
  });

  it("ends at once when aborted while nothing is printed", async () => {
    const { engine, state, ports } = setup();
    engine.add("web", "r1");
    state.active = "web";
    const abort = new AbortController();
    const gen = followService(ports, { since: null, tail: 10 }, abort.signal);
    const next = gen.next();
    setTimeout(() => abort.abort(), 20);
    expect((await next).done).toBe(true);
  });
});
