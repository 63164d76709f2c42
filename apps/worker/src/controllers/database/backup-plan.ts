import type { ManagedContainer } from "@levelrail/docker";
import type { ProbeObservation } from "../application/prober";
import type { BackupRecord, DesiredDatabase } from "./store";

/** How long a backup waits for its database to run before it fails. */
export const BACKUP_WAIT_MS = 10 * 60_000;

export const INTERRUPTED = "interrupted: the worker stopped while this backup ran; nothing it stored counts (back up again)";

/** What a backup pass wants: the backup and its database as stored, and which worker process this is. */
export interface BackupDesired {
  backup: BackupRecord | null;
  database: DesiredDatabase | null;
  /** This worker process: a running backup marked by another one was cut short when that one stopped. */
  runner: string;
}

export interface BackupObserved {
  now: number;
  /** The database's server under its current name, when it runs (from the container informer). */
  server: ManagedContainer | null;
  /** That server's latest readiness probe (from the prober manager). */
  probe: ProbeObservation | null;
  /** Whether the backup's target still exists; null: not read (no verification asked). */
  targetExists: boolean | null;
}

/** The one next step of a backup. Dumping and verifying run off the runner's slot. */
export type BackupStep =
  /** Nothing to do: gone, its database gone, or finished with nothing asked. */
  | { kind: "none" }
  /** Cut short by a worker that stopped: its throwaway and whatever it stored go; the backup is `interrupted`. */
  | { kind: "interrupt"; objectKey: string | null; message: string }
  | { kind: "fail"; message: string }
  /** The database does not accept connections yet: its pass wakes this key once it does; the deadline is the requeue. */
  | { kind: "wait"; message: string; requeueAfterMs: number }
  /** Dump from a held snapshot, upload, verify by a restore, prune beyond the schedule's keep. `staleObject`: an earlier attempt's, removed first. */
  | { kind: "take"; server: ManagedContainer; staleObject: string | null }
  /** Verify again from the stored object. */
  | { kind: "verify" }
  /** Verify again was asked, but the backup's target is gone. */
  | { kind: "verify-no-target"; message: string };

/** Whether the probe says the server accepts connections now (a probe from before its last start does not count). */
export const acceptsConnections = (server: ManagedContainer | null, probe: ProbeObservation | null): server is ManagedContainer =>
  server !== null && server.state === "running" && probe !== null && probe.ready && (probe.at ?? 0) >= server.startedAt;

/** Pure: the one next step of a backup. */
export function planBackup(d: BackupDesired, o: BackupObserved): BackupStep {
  const b = d.backup;
  if (!b || !d.database) return { kind: "none" };
  if (b.status === "running") {
    if (b.runner !== null && b.runner !== d.runner) return { kind: "interrupt", objectKey: b.objectKey, message: INTERRUPTED };
    if (!acceptsConnections(o.server, o.probe)) {
      const left = b.createdAt.getTime() + BACKUP_WAIT_MS - o.now;
      if (left < 0) return { kind: "fail", message: "the database did not run within 10 minutes of this backup's request" };
      return { kind: "wait", message: "waiting for the database to accept connections", requeueAfterMs: left };
    }
    // This process's own earlier attempt (its pass threw half way): start over, without its object.
    return { kind: "take", server: o.server, staleObject: b.runner === d.runner ? b.objectKey : null };
  }
  if (!b.verifyRequestedAt) return { kind: "none" };
  if (o.targetExists === null) throw new Error("plan: the backup's target was not looked up");
  if (!o.targetExists) return { kind: "verify-no-target", message: "cannot verify: its backup target was deleted" };
  return { kind: "verify" };
}
