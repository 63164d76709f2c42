import { describe, expect, it } from "vitest";
import { DEFAULT_TIMINGS, Watchdog } from "./watchdog";

/** A sibling and a clock under the test's control; `step` is one watchdog tick 50 ms after the last. */
function rig(o: { pid?: number | null; ownPid?: number; dataPlane?: (pid: number) => boolean; youngMs?: number; stopped?: boolean; recorded?: number | null } = {}) {
  const world = { now: 100_000, answering: true, pid: o.pid === undefined ? 4242 : o.pid, servingMs: 0 as number | null, killed: [] as number[], logs: [] as string[] };
  const dog = new Watchdog(
    {
    probe: () => (world.answering ? Promise.resolve() : Promise.reject(new Error("no answer"))),
    sibling: () => (world.pid === null ? Promise.reject(new Error("no healthz")) : Promise.resolve({ pid: world.pid, servingMs: world.servingMs })),
    recordedPid: () => o.recorded ?? null,
    isDataPlane: o.dataPlane ?? (() => true),
    stopped: () => o.stopped ?? true,
    kill: (pid) => void world.killed.push(pid),
    now: () => world.now,
    log: (l) => void world.logs.push(l),
    ownPid: o.ownPid ?? 1111,
    },
    { ...DEFAULT_TIMINGS, youngMs: o.youngMs ?? 0 },
  );
  const flush = () => new Promise((r) => setImmediate(r));
  const step = async (ms = DEFAULT_TIMINGS.intervalMs) => {
    world.now += ms;
    dog.tick();
    await flush();
  };
  const steps = async (n: number) => {
    for (let i = 0; i < n; i++) await step();
  };
  return { world, dog, step, steps };
}

describe("the sibling watchdog", () => {
  it("gives a silent sibling the kernel reports running or sleeping (starved, not stopped) 1 s before a kill", async () => {
    const r = rig({ stopped: false });
    await r.steps(3);
    r.world.answering = false;
    await r.steps(10); // 500 ms of silence
    expect(r.world.killed).toEqual([]);
    await r.steps(12); // past 1 s
    expect(r.world.killed).toEqual([4242]);
  });

  it("never kills a sibling that has not answered yet (either side starting)", async () => {
    const r = rig();
    r.world.answering = false;
    await r.steps(100);
    expect(r.world.killed).toEqual([]);
  });

  it("kills the sibling's pid once it gave no answer for 150 ms, once per silence, and watches the restarted one again", async () => {
    const r = rig();
    await r.steps(3);
    expect(r.dog.siblingPid).toBe(4242);
    r.world.answering = false; // frozen
    await r.steps(2); // 100 ms of silence: not yet
    expect(r.world.killed).toEqual([]);
    await r.steps(2);
    expect(r.world.killed).toEqual([4242]);
    await r.steps(40); // still silent (restarting): no second kill of anything
    expect(r.world.killed).toEqual([4242]);
    // The engine restarted it: a new process, learned from its first answer.
    r.world.pid = 5353;
    r.world.answering = true;
    await r.steps(2);
    expect(r.dog.siblingPid).toBe(5353);
    r.world.answering = false;
    await r.steps(4);
    expect(r.world.killed).toEqual([4242, 5353]);
    expect(r.world.logs.join("\n")).toMatch(/pid 5353\) gave no answer for 1\d\d ms: killed it/);
  });

  it("a sibling that has just started gets 1 s for its first 3 s (the end of its start-up), then 150 ms", async () => {
    const r = rig({ youngMs: 3000 });
    r.world.servingMs = 400;
    await r.steps(3);
    r.world.answering = false;
    await r.steps(10); // 500 ms
    expect(r.world.killed).toEqual([]);
    r.world.answering = true;
    await r.steps(50); // 3 s since it started
    r.world.answering = false;
    await r.steps(4);
    expect(r.world.killed).toEqual([4242]);
    // Killed: the restarted one is young again.
    r.world.pid = 5353;
    r.world.answering = true;
    await r.steps(2);
    r.world.answering = false;
    await r.steps(10);
    expect(r.world.killed).toEqual([4242]);
    await r.steps(15); // over 1 s of silence
    expect(r.world.killed).toEqual([4242, 5353]);
    // A watchdog that starts next to a sibling that has run for long (it was itself restarted): no grace.
    const late = rig({ youngMs: 3000 });
    late.world.servingMs = 60_000;
    await late.steps(3);
    late.world.answering = false;
    await late.steps(4);
    expect(late.world.killed).toEqual([4242]);
  });

  it("a silence shorter than 150 ms (one probe lost now and then) is no reason", async () => {
    const r = rig();
    await r.steps(3);
    for (let i = 0; i < 20; i++) {
      r.world.answering = false;
      await r.steps(1);
      r.world.answering = true;
      await r.steps(1);
    }
    expect(r.world.killed).toEqual([]);
  });

  it("a stall of its own event loop is not blamed on the sibling", async () => {
    const r = rig();
    await r.steps(3);
    r.world.answering = false; // the sibling's answer waits unread while we were stalled
    await r.step(800);
    expect(r.world.killed).toEqual([]);
    r.world.answering = true;
    await r.steps(10);
    expect(r.world.killed).toEqual([]);
  });

  it("never kills itself, a pid it could not learn, or a pid that is no data plane any more", async () => {
    for (const o of [{ ownPid: 4242 }, { pid: null }, { dataPlane: () => false }]) {
      const r = rig(o);
      await r.steps(3);
      r.world.answering = false;
      await r.steps(10);
      expect(r.world.killed).toEqual([]);
    }
  });

  it("a sibling frozen before its pid was learned is killed by the pid it recorded in its pid file", async () => {
    const r = rig({ pid: null, recorded: 6464 });
    await r.steps(3); // it answers; its /healthz does not (pid unknown)
    expect(r.dog.siblingPid).toBe(null);
    r.world.answering = false;
    await r.steps(4);
    expect(r.world.killed).toEqual([6464]);
    // A recorded pid that is no data plane any more is left alone.
    const stale = rig({ pid: null, recorded: 7575, dataPlane: (pid) => pid !== 7575 });
    await stale.steps(3);
    stale.world.answering = false;
    await stale.steps(10);
    expect(stale.world.killed).toEqual([]);
  });
});
