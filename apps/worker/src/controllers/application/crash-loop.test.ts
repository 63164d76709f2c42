import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { lastLinesOf } from "@levelrail/spec/service-event";
import type { ObservedStatus } from "./ports";
import { crashLoopTransition } from "./crash-loop";
import { IMAGE_ID, IMAGE_REF, NEW, NOW, SVC_ID, spec, testbed } from "./testbed";

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const status = (over: Partial<ObservedStatus>): ObservedStatus => ({
  phase: "running",
  step: null,
  image: "x",
  activeContainer: "c",
  message: "",
  crashLooping: false,
  restarts: 0,
  lastExit: null,
  ...over,
});

describe("crash loop transitions (pure)", () => {
  it.each<[string, "crash_loop_started" | "crash_loop_ended" | null, Partial<ObservedStatus>, string | null]>([
    ["starts looping, no event before", null, { crashLooping: true }, "crash_loop_started"],
    ["starts looping again after an end", "crash_loop_ended", { crashLooping: true }, "crash_loop_started"],
    ["still looping: nothing", "crash_loop_started", { crashLooping: true }, null],
    ["stops looping", "crash_loop_started", { crashLooping: false }, "crash_loop_ended"],
    ["healthy, never looped", null, {}, null],
    ["a failed release whose serving container loops", null, { phase: "failed", crashLooping: true }, "crash_loop_started"],
    ["a deploy's step says nothing about the live container", "crash_loop_started", { phase: "deploying" }, null],
    ["stopped: nothing", "crash_loop_started", { phase: "stopped" }, null],
  ])("%s", (_, last, over, want) => {
    expect(crashLoopTransition(last, status(over))).toBe(want);
  });
});

const SECRET = "tok-9f8e7d6c5b4a";

/** A live service with the secret TOKEN whose container printed lines (one holds the secret). */
function looping(secrets: Record<string, string> = { TOKEN: SECRET }) {
  const t = testbed({
    release: { id: "rel-1", outcome: "succeeded", imageId: IMAGE_ID, finishedAt: NOW - 3_600_000, spec: spec() },
    service: { envTarget: { serviceId: SVC_ID, orgId: "org-1", projectId: "p", environmentId: "e", env: {}, secretKeys: ["TOKEN"], storageTargetId: null, databaseEnv: {} } },
    envStores: { secrets: { secretsOf: async () => secrets } },
  });
  t.engine.images.set(IMAGE_REF, IMAGE_ID);
  const c = t.live(NEW, "rel-1");
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  t.engine.print(NEW, `${lines.join("\n")}\nfatal: bad token ${SECRET}\n`);
  return { t, c };
}

describe("application controller: crash loop events", () => {
  it("records crash_loop_started once, with restarts, the last exit and the last lines (secret redacted); then its end once", async () => {
    const { t } = looping();
    await t.converge();
    expect(t.events).toEqual([]);
    // One crash is no loop.
    t.engine.restart(NEW, 1);
    await t.converge();
    expect(t.events).toEqual([]);
    for (let i = 0; i < 2; i++) t.engine.restart(NEW, 1);
    await t.converge();
    expect(t.events).toHaveLength(1);
    const started = t.events[0]!;
    expect(started).toMatchObject({ orgId: "org-1", serviceId: SVC_ID, kind: "crash_loop_started" });
    expect(started.detail).toMatch(/^crash loop started: 3 restarts; last exit code 1 at /);
    expect(started.detail).not.toContain(SECRET);
    const lines = lastLinesOf(started.detail);
    expect(lines).toHaveLength(20);
    expect(lines.at(-1)).toBe("fatal: bad token [redacted]");
    expect(lines[0]).toBe("line 12");

    // More crashes and passes: still one event.
    t.engine.crashLoop(NEW, 1, 2);
    await t.converge();
    await t.pass();
    expect(t.events).toHaveLength(1);

    // Up for longer than the window: the loop ended, once.
    t.engine.restart(NEW, 1);
    await t.converge();
    vi.setSystemTime(NOW + 120_000);
    await t.converge();
    await t.pass();
    expect(t.store.status).toMatchObject({ crashLooping: false, restarts: 6 });
    expect(t.events.map((e) => e.kind)).toEqual(["crash_loop_started", "crash_loop_ended"]);
    expect(t.events[1]!.detail).toBe(`crash loop ended: running again after 6 restarts; last exit code 1 at ${new Date(NOW).toISOString()}`);
  });

  it("a worker restarted mid-loop compares with the last event stored: nothing recorded twice", async () => {
    const { t } = looping();
    for (let i = 0; i < 3; i++) t.engine.restart(NEW, 1);
    // What the store's read of the service says after an earlier worker recorded the start.
    t.store.service = { ...t.store.service!, lastEvent: "crash_loop_started" };
    await t.converge();
    expect(t.store.status).toMatchObject({ crashLooping: true });
    expect(t.events).toEqual([]);
  });

  it("a secret rotated since the container was created: the value it has (and printed) is redacted too, and a removed secret its label names", async () => {
    const rotated = "tok-rotated-away-1234";
    const removed = "gone-secret-5678";
    const { t, c } = looping({ TOKEN: "tok-current-0000" });
    c.options.Env = [`TOKEN=${rotated}`, `OLD_KEY=${removed}`, "PLAIN=shown-value"];
    c.labels["levelrail.secret-keys"] = "OLD_KEY,TOKEN";
    t.engine.print(NEW, `using ${rotated} and ${removed}, plain shown-value\n`);
    for (let i = 0; i < 3; i++) t.engine.restart(NEW, 1);
    await t.converge();
    expect(t.events).toHaveLength(1);
    expect(t.events[0]!.detail).not.toContain(rotated);
    expect(t.events[0]!.detail).not.toContain(removed);
    expect(lastLinesOf(t.events[0]!.detail).at(-1)).toBe("using [redacted] and [redacted], plain shown-value");
  });

  it("a secret that no longer resolves: the event keeps no output at all (it could not be redacted)", async () => {
    const { t } = looping({});
    for (let i = 0; i < 3; i++) t.engine.restart(NEW, 1);
    await t.converge();
    expect(t.events).toHaveLength(1);
    expect(t.events[0]!.detail).not.toContain(SECRET);
    expect(t.events[0]!.detail).toContain("not kept");
    expect(lastLinesOf(t.events[0]!.detail)).toEqual([]);
  });
});
