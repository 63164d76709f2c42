// The release controller's inputs and status writer in memory, as the swarm tests and the swarm
// benchmark drive it (the worker builds its input with `swarmInput` from the stored service and
// writes statuses to PostgreSQL).
import type { RegistryAuth } from "@levelrail/docker";
import type { ObservedStatus, ReleaseUpdate, StatusWriter } from "../application/ports";
import { type SwarmRelease, releaseServiceSpec } from "./desired";
import type { DesiredSwarmRelease } from "./plan";
import type { SwarmReleaseInput } from "./reconcile";

export class TestReleases implements StatusWriter {
  /** What the controller wrote of each release (a switched one with when it switched). */
  readonly releases = new Map<string, ReleaseUpdate & { finishedAt?: number }>();
  /** The status it wrote last. */
  status: ObservedStatus | null = null;

  constructor(private readonly o: { shortName: string; serviceId: string; appId: string; appName: string; registryAuth: RegistryAuth | null; replicas?: number; env?: Record<string, string>; secretEnv?: Record<string, string> }) {}

  async setStatus(_id: string, st: ObservedStatus): Promise<void> {
    this.status = st;
  }

  async updateRelease(id: string, update: ReleaseUpdate): Promise<void> {
    this.releases.set(id, { ...this.releases.get(id), ...update, ...(update.outcome === "succeeded" ? { finishedAt: Date.now() } : {}) });
  }

  /** The input of a pass for release `releaseId` of `image` (its outcome as written so far); `over` changes the release, `extra` its secrets and hooks. */
  input(releaseId: string, image: string, over: Partial<SwarmRelease> = {}, extra: Pick<DesiredSwarmRelease, "hooks"> & { secretEnv?: Record<string, string> } = {}): SwarmReleaseInput {
    const { shortName, serviceId, appId, appName } = this.o;
    const r: SwarmRelease = { serviceId, service: "web", appId, environmentId: "env-1", releaseId, restartNonce: "", image, port: 8080, healthPath: "/", replicas: this.o.replicas ?? 2, placement: {}, env: { ...this.o.env }, readyBudgetSeconds: 60, ...over };
    const rec = this.releases.get(releaseId);
    const release: DesiredSwarmRelease = {
      id: releaseId,
      outcome: rec?.outcome ?? "pending",
      finishedAt: rec?.finishedAt ?? null,
      // A task stops within a second: the drains of the tests are short.
      spec: { ...releaseServiceSpec(shortName, r, this.o.registryAuth), stopGraceSeconds: 1 },
      image,
      readyBudgetMs: r.readyBudgetSeconds * 1000,
      secretEnv: { ...(extra.secretEnv ?? this.o.secretEnv) },
      ...(extra.hooks ? { hooks: extra.hooks } : {}),
    };
    return { serviceId, service: { appId, appName, name: r.service, port: r.port, healthPath: r.healthPath }, release };
  }
}
