import type { BuildStatus, BuildTrigger } from "@levelrail/db/schema/git";
import type { GitCredentialSecret } from "./git";

/** A build as the controller reads it. */
export interface BuildRecord {
  id: string;
  orgId: string;
  serviceId: string;
  commit: string | null;
  ref: string;
  status: BuildStatus;
  deploy: boolean;
  /** `push`: a webhook's push, deployed only while its commit is still the branch's tip. */
  trigger: BuildTrigger;
  runner: string | null;
  cancelRequestedAt: Date | null;
  createdBy: string;
}

/** The service's git source, with what a build needs of the service. */
export interface SourceRecord {
  id: string;
  orgId: string;
  serviceId: string;
  serviceName: string;
  environmentId: string;
  url: string;
  ref: string;
  path: string;
  dockerfile: string;
  credentialId: string | null;
  buildArgs: string[];
  target: string | null;
}

/** What a build changes on its row. */
export type BuildUpdate = Partial<{
  status: BuildStatus;
  commit: string;
  step: string | null;
  message: string;
  imageId: string;
  image: string;
  runner: string | null;
  startedAt: Date;
  finishedAt: Date;
}>;

/** The build controller's store: its own narrow view of the database. */
export interface BuildStore {
  build(id: string): Promise<BuildRecord | null>;
  sourceOf(serviceId: string): Promise<SourceRecord | null>;
  /** Whether another build of the service than `buildId` is running. */
  serviceBusy(serviceId: string, buildId: string): Promise<boolean>;
  /** The oldest queued build of the service, to start once the running one ends. */
  nextQueued(serviceId: string): Promise<string | null>;
  updateBuild(id: string, update: BuildUpdate): Promise<void>;
  /**
   * Marks the build running on `runner` if it is still queued (or this runner's own earlier attempt);
   * false when it was superseded or cancelled meanwhile (it does not start).
   */
  startBuild(id: string, runner: string, at: Date, message: string): Promise<boolean>;
  /** Whether a cancel was asked for since the build started. */
  cancelRequested(id: string): Promise<boolean>;
  /** Appends lines (already redacted) to the build's log, numbered from `seq`. */
  appendLog(id: string, seq: number, lines: string[]): Promise<void>;
  /** Drops a log an earlier attempt of this build wrote (it starts over). */
  clearLog(id: string): Promise<void>;
  /** The credential, opened; null when it is gone. Throws when it cannot be opened. */
  credential(orgId: string, id: string): Promise<GitCredentialSecret | null>;
  /** What the source last saw of its repository: the commit its ref pointed to, or why it could not be reached ("" once reached). */
  sourceSeen(sourceId: string, seen: { commit?: string; error: string; polled?: boolean }): Promise<void>;
}

/**
 * The service's effective environment for a build: its opt-in build args' values and every secret
 * value (to redact from the log). Unresolvable: a message saying why.
 */
export interface BuildEnv {
  buildEnv(serviceId: string, keys: readonly string[]): Promise<{ ok: true; args: Record<string, string>; secrets: string[] } | { ok: false; problem: string }>;
}

/** Deploys a built image through the deploy verb, as `build:<id>`; answers the release's id. */
export interface BuiltDeployer {
  deployBuilt(b: { buildId: string; orgId: string; serviceId: string; image: string; imageId: string }): Promise<string>;
}
