import type { BackupSchedule, BackupStatus, BackupStep, BackupVerification, DatabaseEngineId, DatabasePhase, InventoryRecord, RestoreMode, RestoreStatus } from "@levelrail/spec/database";
import type { DatabaseCredentials } from "./ports";

/** A backup target opened for use: its secret key is in memory only for the pass. */
export interface TargetCredentials {
  id: string;
  name: string;
  endpoint: string;
  bucket: string;
  region: string;
  accessKey: string;
  secretKey: string;
}

/** A database as the controller needs it, read fresh every pass. */
export interface DesiredDatabase {
  id: string;
  orgId: string;
  environmentId: string;
  name: string;
  engine: DatabaseEngineId;
  version: string;
  image: string;
  credentials: DatabaseCredentials;
  volume: string;
  backupSchedule: BackupSchedule | null;
  scheduleSince: Date | null;
  /** Apps (ids) with a service whose `databaseEnv` names this database: it joins their networks. */
  attachedApps: string[];
  /** Kept volumes an operator asked to remove. */
  volumesToRemove: string[];
  /** Made from a backup whose restore failed: it never starts (empty) and shows why. */
  failedInto: string | null;
  /**
   * Node labels its server's node must carry. `{}`: a container on the manager's engine (one engine
   * or a swarm); otherwise a one-replica swarm service on such a node, with its volume there.
   */
  placement: Record<string, string>;
  /** With a placement: the swarm node chosen for it (its volume is there), null until the first pass chooses. */
  nodeId: string | null;
}

export interface BackupRecord {
  id: string;
  orgId: string;
  databaseId: string;
  targetId: string | null;
  status: BackupStatus;
  runner: string | null;
  scheduledFor: Date | null;
  objectKey: string | null;
  sha256: string | null;
  inventory: InventoryRecord | null;
  verifyRequestedAt: Date | null;
  prunedAt: Date | null;
  createdAt: Date;
}

export interface RestoreRecord {
  id: string;
  databaseId: string;
  backupId: string | null;
  mode: RestoreMode;
  volume: string;
  runner: string | null;
}

export interface BackupUpdate {
  status?: BackupStatus;
  step?: BackupStep | null;
  message?: string;
  runner?: string | null;
  startedAt?: Date;
  finishedAt?: Date | null;
  sizeBytes?: number;
  sha256?: string;
  objectKey?: string;
  inventory?: InventoryRecord;
  verification?: BackupVerification;
  verifyRequestedAt?: Date | null;
  prunedAt?: Date;
}

/** The PostgreSQL side of the database controller (`apps/worker/src/database-store.ts`). */
export interface DatabaseStore {
  database(id: string): Promise<DesiredDatabase | null>;
  /** Every database and every pending teardown: what a resync wakes. */
  databaseIds(): Promise<string[]>;
  /** What is left to do for a deleted database, or null. */
  teardown(id: string): Promise<{ dropData: boolean } | null>;
  finishTeardown(id: string): Promise<void>;
  setStatus(id: string, phase: DatabasePhase, message: string, container: string | null): Promise<void>;
  /** Records the node chosen for a placed database (once: a database already on a node keeps it). */
  pinNode(id: string, nodeId: string): Promise<void>;

  /** The restore of this database that is still to run (or was cut short), oldest first. */
  pendingRestore(databaseId: string): Promise<RestoreRecord | null>;
  updateRestore(id: string, patch: { status?: RestoreStatus; message?: string; runner?: string | null; finished?: boolean }): Promise<void>;
  /** The database's data is now `volume`; `previous` is kept (listed, removable). */
  switchVolume(databaseId: string, orgId: string, volume: string, previous: string): Promise<void>;
  volumeRemoved(name: string): Promise<void>;

  backup(id: string): Promise<BackupRecord | null>;
  updateBackup(id: string, patch: BackupUpdate): Promise<void>;
  /** Backups of this database that still need a pass (queued, running here or elsewhere, verify asked). */
  openBackups(databaseId: string): Promise<string[]>;
  /** The latest due time a scheduled run was recorded for. */
  lastScheduledFor(databaseId: string): Promise<Date | null>;
  /** Records the run for `scheduledFor` (once: a second call for the same time returns null). */
  insertScheduled(d: { databaseId: string; orgId: string; targetId: string }, scheduledFor: Date): Promise<string | null>;
  /** Backups of the database whose object is still on a target (verified or unverified, not pruned), newest first. */
  storedBackups(databaseId: string): Promise<(BackupRecord & { status: "verified" | "unverified" })[]>;
  target(orgId: string, id: string): Promise<TargetCredentials | null>;
}

/** The databases a service attaches (by its `databaseEnv`), in its environment, with its app. */
export interface AttachmentStore {
  attachedTo(serviceId: string): Promise<{ appId: string; databases: Pick<DesiredDatabase, "id" | "name" | "image" | "volume" | "placement">[] } | null>;
}
