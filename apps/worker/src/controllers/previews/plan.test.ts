import { describe, expect, it } from "vitest";
import type { ObservedPreview } from "@levelrail/services/preview/converge";
import { needsOutcome, planPreview } from "./plan";

const H = "b".repeat(40);
const base: ObservedPreview = { id: "p", orgId: "o", number: 12, state: "open", environmentId: null, headCommit: H, builtCommit: null, statusUrl: null, reported: null, domain: "preview.localhost", awaitingApproval: false };
const at = (over: Partial<ObservedPreview>): ObservedPreview => ({ ...base, ...over });

describe("planPreview", () => {
  const rows: [string, ObservedPreview, Parameters<typeof planPreview>[1], ReturnType<typeof planPreview>["kind"]][] = [
    ["open, no environment yet: clone", base, null, "open"],
    ["open, cloned, nothing built: build", at({ environmentId: "e" }), null, "build"],
    ["crash after the builds were queued, before the report: report pending", at({ environmentId: "e", builtCommit: H, statusUrl: "http://127.0.0.1/s" }), "pending", "report"],
    ["a new head commit: build again", at({ environmentId: "e", builtCommit: "a".repeat(40) }), null, "build"],
    ["built, no status URL: nothing", at({ environmentId: "e", builtCommit: H }), null, "none"],
    ["built, pending reported already: nothing", at({ environmentId: "e", builtCommit: H, statusUrl: "http://x/s", reported: `pending ${H}` }), "pending", "none"],
    ["built, succeeded since pending: report success", at({ environmentId: "e", builtCommit: H, statusUrl: "http://x/s", reported: `pending ${H}` }), "success", "report"],
    ["a report of an older commit does not count", at({ environmentId: "e", builtCommit: H, statusUrl: "http://x/s", reported: `success ${"a".repeat(40)}` }), "success", "report"],
    ["closed with its environment: remove", at({ state: "closed", environmentId: "e" }), null, "remove"],
    ["refused with an environment (quota lowered): remove", at({ state: "refused", environmentId: "e" }), null, "remove"],
    ["closed, environment gone: nothing", at({ state: "closed" }), null, "none"],
    ["refused: nothing", at({ state: "refused" }), null, "none"],
    ["the project's settings are gone: nothing", at({ domain: null }), null, "none"],
    ["a fork's request awaiting approval: no clone", at({ awaitingApproval: true }), null, "none"],
    ["a fork's new head commit awaiting approval: no build in the cloned environment", at({ awaitingApproval: true, environmentId: "e", builtCommit: "a".repeat(40) }), null, "none"],
    ["a fork's request approved: clone", at({ awaitingApproval: false }), null, "open"],
    ["a fork's request awaiting approval, closed: its environment is removed", at({ awaitingApproval: true, state: "closed", environmentId: "e" }), null, "remove"],
  ];
  it.each(rows)("%s", (_name, p, outcome, kind) => {
    expect(planPreview(p, outcome).kind).toBe(kind);
  });
  it("observes the outcome only of a built open preview with a status URL", () => {
    expect(needsOutcome(at({ environmentId: "e", builtCommit: H, statusUrl: "http://x" }))).toBe(true);
    expect(needsOutcome(at({ environmentId: "e", builtCommit: H }))).toBe(false);
    expect(needsOutcome(at({ environmentId: "e", statusUrl: "http://x" }))).toBe(false);
  });
});
