import type { ContainerWrites, ImagePort, LogPort, ManagedContainer, NetworkPort, RegistryAuth, Runtime } from "@levelrail/docker";
import type { ServiceEventKind } from "@levelrail/db/schema/observability";
import type { EnvTarget } from "@levelrail/spec/env";
import type { DeployStep, Phase, ReleaseOutcome, ReleaseSpec, ReplicaView } from "@levelrail/spec/service";

/**
 * The engine calls the application controller makes, and no others: it changes containers, resolves
 * and pulls images, makes app networks, runs hooks (a one-off container's logs and exit, an exec in
 * the new container). It lists no containers: it reads them from the informer (`ContainerIndex`).
 */
export type ApplicationEngine = ContainerWrites &
  Pick<Runtime, "inspectContainer" | "exec"> &
  Pick<ImagePort, "imageId" | "pullImage" | "imageCreated" | "imageRepoDigests" | "imageOrigin" | "registryAccess"> &
  Pick<NetworkPort, "inspectNetwork" | "listNetworks" | "createNetwork"> &
  LogPort;

/** The release a service must converge to. */
export interface DesiredRelease {
  id: string;
  spec: ReleaseSpec;
  restartNonce: string;
  imageId: string | null;
  outcome: ReleaseOutcome;
  /** When the release switched traffic (ms since epoch), null before. */
  finishedAt: number | null;
  /** Why it failed ("" otherwise). */
  message: string;
}

export interface DesiredService {
  id: string;
  name: string;
  appId: string;
  appName: string;
  /** The environment the service (and its app) belongs to: its containers carry it. */
  environmentId: string;
  orgId: string;
  registryCredentialId: string | null;
  /** What env resolution looks up for this service (its own env is taken from the release). */
  envTarget: EnvTarget;
  release: DesiredRelease | null;
  /** The kind of its last `service_event` (a crash loop's start or end); absent or null: none. */
  lastEvent?: ServiceEventKind | null;
  /** The status row as stored when the service was read (null: none yet; absent: unknown), so a pass writes only a status that changed. */
  storedStatus?: ObservedStatus | null;
}

/**
 * The engine's containers as the controller reads them: from memory (the container informer), not
 * one engine call per pass. Whoever changes a container tells the index before the pass ends, so the
 * next pass never sees it as it was.
 */
export interface ContainerIndex {
  /** The service's containers, its hook containers included (by the service label). */
  byService(serviceId: string): ManagedContainer[];
  /** Inspects the container (by id or name) again; one that is gone leaves the index. */
  refresh(idOrName: string): Promise<void>;
  /** The container was removed. */
  forget(id: string): void;
}

/** Registry logins for pulls; absent means a service that declares one fails its deploy. */
export interface RegistryStore {
  registryAuth(orgId: string, id: string): Promise<RegistryAuth | null>;
}

/** The only read the application controller needs. */
export interface ServiceStore {
  /** By the service's id (the reconcile key's). */
  getDesiredService(id: string): Promise<DesiredService | null>;
}

/** How the active container's last run ended (`at`: ISO time). */
export interface LastExit {
  code: number | null;
  at: string | null;
}

export interface ObservedStatus {
  phase: Phase;
  step: DeployStep | null;
  image: string | null;
  activeContainer: string | null;
  message: string;
  /** The live container keeps exiting and the engine keeps restarting it. */
  crashLooping: boolean;
  /** How often the engine restarted the live container. */
  restarts: number;
  lastExit: LastExit | null;
  /** On a swarm: the active release's tasks and their nodes. Absent: none (one engine). */
  replicas?: ReplicaView[];
}

export interface ReleaseUpdate {
  imageId?: string;
  /** When that image was built, recorded with it (null: the engine could not tell). */
  imageCreatedAt?: Date | null;
  outcome?: "deploying" | "succeeded" | "failed";
  message?: string;
  container?: string;
}

/** Where the controller writes what it observed. */
export interface StatusWriter {
  setStatus(serviceId: string, status: ObservedStatus): Promise<void>;
  /** Updates the release only while it is still pending or deploying. */
  updateRelease(releaseId: string, update: ReleaseUpdate): Promise<void>;
}

export interface ProbeResult {
  ready: boolean;
  detail: string;
  /** The container can never get ready as it is (it exited, it is gone): no point probing on. */
  final?: boolean;
  /** The engine can no longer start processes in the container (broken by an engine restart): only a new one can get ready. */
  replace?: boolean;
}

export interface Prober {
  probe(url: string, timeoutMs: number): Promise<ProbeResult>;
}

/** HTTP readiness: any 2xx or 3xx within the timeout. */
export const httpProber: Prober = {
  async probe(url, timeoutMs) {
    try {
      const res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
      await res.body?.cancel();
      return { ready: res.status >= 200 && res.status < 400, detail: `HTTP ${res.status}` };
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
      return { ready: false, detail: cause };
    }
  },
};

/** Deploy metrics: one sample per real cutover attempt. Optional: without one, deploys work and are not measured. */
export interface DeployRecorder {
  recordDeploy(releaseId: string, outcome: "succeeded" | "failed"): Promise<void>;
}

/**
 * Where the images this installation pulled are recorded (the only ones image collection may
 * remove). Optional: without one, pulls work and nothing they bring is ever collected.
 */
export interface PullRecorder {
  /** The pull brought `imageId` to the host as `ref` (it was not there under that reference before). */
  recordPull(imageId: string, ref: string): Promise<void>;
}

export interface DatabaseAttacher {
  /**
   * Connects the servers of the managed databases the service attaches to its app's network (under
   * each database's name); rejects, naming the database, while one is not running yet, so the
   * deploy waits for it instead of starting a container that cannot reach it.
   */
  attach(serviceId: string): Promise<void>;
}
