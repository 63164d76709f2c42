import { describe, expect, it } from "vitest";
import { FakeEngine } from "@levelrail/docker/fake";
import { networkLabels, networkName } from "@levelrail/spec/naming";
import { networkCleanupController } from "./reconcile";

const SHORT = "lrt";

describe("network cleanup", () => {
  it("removes our network of a deleted app (by id, after checking its labels) and nothing else", async () => {
    const engine = new FakeEngine();
    const live = engine.addNetwork({ name: networkName(SHORT, "live"), labels: networkLabels(SHORT, "live"), subnet: "10.201.0.0/26", gateway: "10.201.0.1" });
    engine.addNetwork({ name: networkName(SHORT, "gone"), labels: networkLabels(SHORT, "gone"), subnet: "10.201.0.64/26", gateway: "10.201.0.65" });
    const theirs = engine.addNetwork({ name: networkName("other", "gone"), labels: networkLabels("other", "gone"), subnet: "10.201.0.128/26", gateway: "10.201.0.129" });
    const unlabelled = engine.addNetwork({ name: networkName(SHORT, "stranger"), subnet: "10.201.0.192/26", gateway: "10.201.0.193" });
    const c = networkCleanupController({ shortName: SHORT, runtime: engine, store: { appIds: async () => new Set(["live"]) } });
    await c.reconcile("networks");
    expect([...engine.networks.values()].map((n) => n.id).sort()).toEqual([live.id, theirs.id, unlabelled.id].sort());
  });
});
