import { describe, expect, it } from "vitest";
import { type BuildDesired, type BuildObserved, type BuildStep, INTERRUPTED, WAIT_FOR_SERVICE_MS, planBuild } from "./plan";
import type { BuildRecord, SourceRecord } from "./ports";

const ME = "host:1:me";
const build = (over: Partial<BuildRecord> = {}): BuildRecord => ({
  id: "b1",
  orgId: "o1",
  serviceId: "s1",
  commit: null,
  ref: "main",
  status: "queued",
  deploy: true,
  runner: null,
  cancelRequestedAt: null,
  createdBy: "u@example.com",
  trigger: "manual",
  ...over,
});
const source: SourceRecord = { id: "g1", orgId: "o1", serviceId: "s1", serviceName: "web", environmentId: "e1", url: "https://git.example.com/a.git", ref: "main", path: ".", dockerfile: "Dockerfile", credentialId: null, buildArgs: [], target: null };
const at = new Date("2026-01-01T00:00:00Z");

const rows: [string, Partial<BuildDesired>, Partial<BuildObserved>, BuildStep][] = [
  ["gone", { build: null }, {}, { kind: "none" }],
  ["succeeded", { build: build({ status: "succeeded" }) }, {}, { kind: "none" }],
  ["failed", { build: build({ status: "failed" }) }, {}, { kind: "none" }],
  ["cancelled", { build: build({ status: "cancelled" }) }, {}, { kind: "none" }],
  ["superseded before it started", { build: build({ status: "superseded" }) }, {}, { kind: "none" }],
  ["queued, the service free", {}, {}, { kind: "run", restart: false }],
  ["queued behind the service's running build", {}, { serviceBusy: true }, { kind: "wait", requeueAfterMs: WAIT_FOR_SERVICE_MS }],
  ["queued, cancelled before it started", { build: build({ cancelRequestedAt: at }) }, {}, { kind: "cancel", message: "cancelled before it finished" }],
  ["running on a worker that stopped (crash mid-build)", { build: build({ status: "running", runner: "host:2:old" }) }, {}, { kind: "interrupt", message: INTERRUPTED }],
  ["running on a stopped worker, cancel asked too", { build: build({ status: "running", runner: "host:2:old", cancelRequestedAt: at }) }, {}, { kind: "interrupt", message: INTERRUPTED }],
  ["running here, the pass threw half way: starts over", { build: build({ status: "running", runner: ME }) }, {}, { kind: "run", restart: true }],
  ["running here and cancel asked after the throw", { build: build({ status: "running", runner: ME, cancelRequestedAt: at }) }, {}, { kind: "cancel", message: "cancelled before it finished" }],
  ["its service is no longer git-sourced", { source: null }, {}, { kind: "fail", message: "the service has no git source any more" }],
];

describe("planBuild", () => {
  it.each(rows)("%s", (_name, d, o, want) => {
    expect(planBuild({ build: build(), source, runner: ME, ...d }, { serviceBusy: false, ...o })).toEqual(want);
  });
});
