import { describe, expect, it } from "vitest";
import type { ObservedPreview } from "@levelrail/services/preview/converge";
import { StatusRefused } from "@levelrail/services/preview/provider-api";
import { LevelrailError } from "@levelrail/spec/errors";
import { type PreviewStore, previewsController } from "./reconcile";

const H = "b".repeat(40);
const NOW = new Date("2026-12-02T12:00:00Z");

/** A stateful fake store: the previews it holds change as the controller acts. */
function fakeStore(rows: ObservedPreview[], o: { open?: () => Promise<void>; sweep?: Awaited<ReturnType<PreviewStore["sweepTargets"]>> } = {}) {
  const messages = new Map<string, string>();
  const closed: string[] = [];
  const store: PreviewStore = {
    observe: async () => rows.map((r) => ({ ...r })),
    outcome: async () => "success",
    async open(id) {
      await o.open?.();
      rows.find((r) => r.id === id)!.environmentId = "env";
    },
    async build(id) {
      rows.find((r) => r.id === id)!.builtCommit = H;
      return 1;
    },
    async remove(id) {
      rows.find((r) => r.id === id)!.environmentId = null;
    },
    async reported(id, reported, message) {
      if (reported !== null) rows.find((r) => r.id === id)!.reported = reported;
      if (message !== undefined) messages.set(id, message);
    },
    async message(id, message) {
      messages.set(id, message);
    },
    sweepTargets: async () => o.sweep ?? [],
    async close(id) {
      closed.push(id);
      return true;
    },
  };
  return { store, messages, closed };
}

const preview = (over: Partial<ObservedPreview> = {}): ObservedPreview => ({ id: "p1", orgId: "o", number: 1, state: "open", environmentId: null, headCommit: H, builtCommit: null, statusUrl: "http://127.0.0.1:9/s", reported: null, domain: "p.localhost", awaitingApproval: false, ...over });

describe("previewsController", () => {
  it("takes an open preview through clone, build and report in one pass; a closed one's environment goes", async () => {
    const rows = [preview(), preview({ id: "p2", number: 2, state: "closed", environmentId: "old" })];
    const posted: string[] = [];
    const { store } = fakeStore(rows);
    const c = previewsController({ store, status: { post: async (p, outcome, url) => void posted.push(`${p.number} ${outcome} ${url}`) }, now: () => NOW, log: () => {} });
    expect(await c.reconcile("previews")).toEqual({});
    expect(rows.map((r) => [r.environmentId, r.builtCommit, r.reported])).toEqual([
      ["env", H, `success ${H}`],
      [null, null, null],
    ]);
    expect(posted).toEqual(["1 success http://pr-1.p.localhost"]);
  });

  it("a refusal by a verb is recorded on the preview, not retried in a loop; another error is retried", async () => {
    const refused = fakeStore([preview()], { open: async () => Promise.reject(new LevelrailError("quota_exceeded", "services: 10 of 10 used")) });
    const c = previewsController({ store: refused.store, status: { post: async () => {} }, now: () => NOW, log: () => {} });
    await expect(c.reconcile("previews")).resolves.toEqual({});
    expect(refused.messages.get("p1")).toBe("open: services: 10 of 10 used");
    const broken = fakeStore([preview()], { open: async () => Promise.reject(new Error("connection reset")) });
    const d = previewsController({ store: broken.store, status: { post: async () => {} }, now: () => NOW, log: () => {} });
    await expect(d.reconcile("previews")).rejects.toThrow("connection reset");
  });

  it("a status refused with a 4xx is recorded and not posted again; a 5xx is retried", async () => {
    const rows = [preview({ environmentId: "env", builtCommit: H })];
    const f = fakeStore(rows);
    let posts = 0;
    const c = previewsController({ store: f.store, status: { post: async () => { posts++; throw new StatusRefused("api.github.com answered 401", 401); } }, now: () => NOW, log: () => {} });
    await c.reconcile("previews");
    await c.reconcile("previews");
    expect(posts).toBe(1);
    expect(f.messages.get("p1")).toContain("answered 401");
    const g = fakeStore([preview({ environmentId: "env", builtCommit: H })]);
    const d = previewsController({ store: g.store, status: { post: async () => Promise.reject(new StatusRefused("answered 502", 502)) }, now: () => NOW, log: () => {} });
    await expect(d.reconcile("previews")).rejects.toThrow("502");
  });

  it("the sweep closes by time to live and by the provider's open list, and closes nothing more when the list fails", async () => {
    const old = new Date(NOW.getTime() - 50 * 3_600_000);
    const fresh = new Date(NOW.getTime() - 3_600_000);
    const previews = [
      { id: "a", number: 1, state: "open" as const, updatedAt: old },
      { id: "b", number: 2, state: "open" as const, updatedAt: fresh },
      { id: "c", number: 3, state: "open" as const, updatedAt: fresh },
    ];
    const listed = fakeStore([], { sweep: [{ ttlHours: 48, previews, listOpen: async () => new Set([1, 3]) }] });
    const logs: string[] = [];
    const c = previewsController({ store: listed.store, status: { post: async () => {} }, now: () => NOW, log: (l) => logs.push(l), sweepEveryMs: 60_000 });
    expect(await c.reconcile("preview-sweep")).toEqual({ requeueAfterMs: 60_000 });
    expect(listed.closed).toEqual(["a", "b"]);
    const failing = fakeStore([], { sweep: [{ ttlHours: 48, previews, listOpen: async () => Promise.reject(new Error("api.example.com answered 503")) }] });
    const d = previewsController({ store: failing.store, status: { post: async () => {} }, now: () => NOW, log: (l) => logs.push(l) });
    await d.reconcile("preview-sweep");
    expect(failing.closed).toEqual(["a"]);
    expect(logs.join("\n")).toContain("answered 503");
  });
});
