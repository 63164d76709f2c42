// The release controller on a swarm, as the benchmarks and tests drive it (the worker's queue
// runs its passes in production): one pass, and passes until nothing is pending.
import { type SwarmReleaseDeps, type SwarmReleaseInput, reconcileSwarmRelease } from "./reconcile";

export { type SwarmRelease, type SwarmServiceSource, releaseServiceName, releaseServiceSpec, swarmInput } from "./desired";
export type { DesiredSwarmRelease, TaskPlacement } from "./plan";
export { edgeProber, overlayProber, probeContainerName, type ProbeImage, type TaskProber } from "./probe";
export { type SwarmReleaseDeps, type SwarmReleaseInput, activeEntry, reconcileSwarmRelease } from "./reconcile";
export { ensureAppOverlay } from "../../network/app-overlay";
export { StatePublisher } from "../../dataplane/publisher";
export { laggingEdges, readEdgeAcks } from "../../dataplane/edge-acks";
export { type TestEdge, startTestEdge, testReleaseDeps } from "./edge-testbed";
export { TestReleases } from "./testing";
export type { ObservedStatus, ReleaseUpdate, StatusWriter } from "../application/ports";

/** Runs passes (each when the last asked, at most a second apart) until one leaves nothing pending; answers the steps taken, in order, repeats collapsed. */
export async function passUntilIdle(deps: SwarmReleaseDeps, input: () => SwarmReleaseInput, timeoutMs = 120_000): Promise<string[]> {
  const steps: string[] = [];
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { step, requeueAfterMs } = await reconcileSwarmRelease(deps, input());
    if (steps.at(-1) !== step) steps.push(step);
    if (requeueAfterMs === null) return steps;
    if (Date.now() > until) throw new Error(`the release did not converge within ${timeoutMs} ms: ${steps.join(" → ")}`);
    await new Promise((r) => setTimeout(r, Math.min(requeueAfterMs, 1_000)));
  }
}
