import { describe, expect, it } from "vitest";
import type { DesiredService } from "./controllers/application/ports";
import { type DesiredSource, DesiredSnapshot } from "./desired-snapshot";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";

/** A store whose rows say which read they came from (`name`), counting the reads of each kind. */
function source() {
  let version = 1;
  const reads = { one: 0, all: 0 };
  let gate: Promise<void> | null = null;
  const row = (id: string, from: string): DesiredService =>
    ({ id, name: `${from}-${version}`, appId: "app", appName: "shop", environmentId: "env", orgId: "org", registryCredentialId: null, envTarget: {} as DesiredService["envTarget"], release: null }) satisfies DesiredService;
  const s: DesiredSource & { reads: typeof reads; bump(): void; hold(): () => void } = {
    reads,
    bump: () => void version++,
    /** Holds the next `listDesiredServices` until the returned function is called. */
    hold() {
      let release = () => {};
      gate = new Promise((r) => (release = r));
      return release;
    },
    async getDesiredService(id) {
      reads.one++;
      return row(id, "fresh");
    },
    async listDesiredServices() {
      reads.all++;
      if (gate) await gate;
      gate = null;
      return [A, B].map((id) => row(id, "batch"));
    },
  };
  return s;
}

/** A pass of `id` as the runner makes one: start, the controller's read, end. */
async function pass(snap: DesiredSnapshot, id: string) {
  snap.passStarted(id);
  const r = await snap.getDesiredService(id);
  snap.passEnded(id);
  return r?.name;
}

describe("DesiredSnapshot", () => {
  it("a resync reads every service in one query; each service's next pass takes its row, later ones read fresh", async () => {
    const src = source();
    const snap = new DesiredSnapshot(src);
    expect(await snap.load()).toEqual([A, B]);
    expect(await pass(snap, A)).toBe("batch-1");
    expect(await pass(snap, B)).toBe("batch-1");
    expect(src.reads).toEqual({ one: 0, all: 1 });
    expect(await pass(snap, A)).toBe("fresh-1");
    expect(src.reads).toEqual({ one: 1, all: 1 });
  });

  it("a service whose desired state was announced changed (NOTIFY) is read fresh", async () => {
    const src = source();
    const snap = new DesiredSnapshot(src);
    await snap.load();
    src.bump();
    snap.invalidate(A);
    expect(await pass(snap, A)).toBe("fresh-2");
    expect(await pass(snap, B)).toBe("batch-1");
  });

  it("a change announced while the query runs is not overwritten by the query's older row", async () => {
    const src = source();
    const snap = new DesiredSnapshot(src);
    const release = src.hold();
    const loading = snap.load();
    snap.invalidate(A);
    release();
    await loading;
    expect(await pass(snap, A)).toBe("fresh-1");
    expect(await pass(snap, B)).toBe("batch-1");
  });

  it("no row is kept for a service whose pass runs during the query or ends after it: that pass may write after the query's snapshot", async () => {
    const src = source();
    const snap = new DesiredSnapshot(src);
    snap.passStarted(A); // a long pass (a deploy) that began before the resync
    const release = src.hold();
    const loading = snap.load();
    snap.passStarted(B);
    snap.passEnded(B); // a short one during the query
    release();
    await loading;
    expect(snap.size).toBe(0);
    snap.passEnded(A);
    expect(await pass(snap, A)).toBe("fresh-1");
    expect(await pass(snap, B)).toBe("fresh-1");
  });

  it("answers a loaded service's organization without a query", async () => {
    const src = source();
    const snap = new DesiredSnapshot(src);
    expect(snap.orgOf(A)).toBeNull();
    await snap.load();
    expect(snap.orgOf(A)).toBe("org");
    expect(src.reads).toEqual({ one: 0, all: 1 });
  });

  it("a read outside a pass never takes a row", async () => {
    const src = source();
    const snap = new DesiredSnapshot(src);
    await snap.load();
    expect((await snap.getDesiredService(A))?.name).toBe("fresh-1");
    expect(await pass(snap, A)).toBe("fresh-1");
  });
});
