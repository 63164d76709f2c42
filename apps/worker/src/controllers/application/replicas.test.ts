import type { ManagedContainer } from "@levelrail/docker";
import { describe, expect, it } from "vitest";
import type { ObservedStatus, StatusWriter } from "./ports";
import { changedStatusOnly, reportingReplicas } from "./redacting";

const NET = "lr-app-a1";
const container = (name: string, over: Partial<ManagedContainer> = {}): ManagedContainer => ({
  id: `id-${name}`, name, state: "running", labels: {}, startedAt: 1, exitCode: null, createdAt: 1, finishedAt: 0, restartPolicy: "unless-stopped", restartCount: 0,
  addresses: { [NET]: "10.240.0.5" }, ...over,
});
const status = (activeContainer: string | null): ObservedStatus => ({ phase: "running", step: null, image: "web:v1", activeContainer, message: "", crashLooping: false, restarts: 0, lastExit: null });

function recording() {
  const written: ObservedStatus[] = [];
  const inner: StatusWriter = { setStatus: async (_id, st) => void written.push(st), updateRelease: async () => {} };
  return { written, inner };
}

describe("where the serving copy runs, on one engine", () => {
  it("is the active container on this engine, with its address on the app's network", async () => {
    const { written, inner } = recording();
    const index = { byService: () => [container("lr-web-old", { state: "exited" }), container("lr-web-new")] };
    await reportingReplicas(inner, index, "host-1", NET).setStatus("s1", status("lr-web-new"));
    expect(written[0]?.replicas).toEqual([{ name: "lr-web-new", node: "host-1", address: "10.240.0.5" }]);
  });

  it("is none while nothing serves, the active container is not running, or it has no address there", async () => {
    const { written, inner } = recording();
    for (const [active, c] of [
      [null, container("lr-web-new")],
      ["lr-web-new", container("lr-web-new", { state: "restarting" })],
      ["lr-web-new", container("lr-web-new", { addresses: {} })],
    ] as const) await reportingReplicas(inner, { byService: () => [c] }, "host-1", NET).setStatus("s1", status(active));
    expect(written.map((w) => w.replicas)).toEqual([[], [], []]);
  });

  it("a status that names the same replicas as the stored one is not written again; a moved one is", async () => {
    const { written, inner } = recording();
    const stored = { ...status("lr-web-new"), replicas: [{ name: "lr-web-new", node: "host-1", address: "10.240.0.5" }] };
    const index = { byService: () => [container("lr-web-new")] };
    await reportingReplicas(changedStatusOnly(inner, stored), index, "host-1", NET).setStatus("s1", status("lr-web-new"));
    expect(written).toHaveLength(0);
    await reportingReplicas(changedStatusOnly(inner, stored), { byService: () => [container("lr-web-new", { addresses: { [NET]: "10.240.0.9" } })] }, "host-1", NET).setStatus("s1", status("lr-web-new"));
    expect(written[0]?.replicas).toEqual([{ name: "lr-web-new", node: "host-1", address: "10.240.0.9" }]);
  });
});
