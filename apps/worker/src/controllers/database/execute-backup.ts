import { databaseHelperName } from "@levelrail/spec/naming";
import type { Redactor } from "@levelrail/spec/redact";
import type { Pass, ReconcileResult } from "../../reconcile/controller";
import { type BackupDeps, takeBackup, verifyBackup } from "./backup";
import type { BackupStep } from "./backup-plan";
import { removeOneOff } from "./oneoff";
import { pruneSet } from "./schedule";
import type { BackupRecord, DesiredDatabase } from "./store";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Performs one planned step of a backup, recording its outcome on the backup. Dumping and verifying
 * wait on the engine and the target off the runner's slot; a failed backup is an outcome, not a throw.
 */
export async function executeBackup(x: BackupDeps & { log: (line: string) => void }, b: BackupRecord, d: DesiredDatabase, step: BackupStep, pass: Pass, redact: Redactor): Promise<ReconcileResult | void> {
  switch (step.kind) {
    case "none":
      return;
    case "interrupt": {
      // Whatever the stopped worker stored is no backup; its throwaway goes too.
      const helper = databaseHelperName(x.shortName, d.name, "verify", b.id);
      await removeOneOff(x, helper, helper);
      await removeObject(x, d, b, step.objectKey);
      return void (await x.store.updateBackup(b.id, { status: "interrupted", step: null, runner: null, finishedAt: x.now(), message: step.message }));
    }
    case "fail":
      return void (await x.store.updateBackup(b.id, { status: "failed", step: null, finishedAt: x.now(), message: step.message }));
    case "wait":
      await x.store.updateBackup(b.id, { message: step.message });
      return { requeueAfterMs: step.requeueAfterMs };
    case "take":
      await removeObject(x, d, b, step.staleObject);
      await pass.waiting(() => takeBackup(x, d, b, step.server, redact));
      return prune(x, d);
    case "verify-no-target":
      return void (await x.store.updateBackup(b.id, { verifyRequestedAt: null, message: step.message }));
    case "verify": {
      const target = b.targetId ? await x.store.target(d.orgId, b.targetId) : null;
      if (!target) return; // deleted since it was observed: the next pass says so
      await x.store.updateBackup(b.id, { step: "verifying", runner: x.runner, message: "verifying again from the stored object" });
      const v = await pass.waiting(() => verifyBackup(x, d, b, target, redact));
      return void (await x.store.updateBackup(b.id, {
        status: v.ok ? "verified" : "unverified",
        step: null,
        verification: v,
        verifyRequestedAt: null,
        message: v.ok ? "verified again: restored from the stored object and compared" : `unverified: ${v.differences[0] ?? "the comparison failed"}`,
      }));
    }
    default: {
      const unknown: never = step;
      throw new Error(`no executor for backup step ${JSON.stringify(unknown)}`);
    }
  }
}

/** Removes an object a backup stored (a cut-short or abandoned attempt's); a target that refuses leaves it, never failing the pass. */
async function removeObject(x: BackupDeps, d: DesiredDatabase, b: BackupRecord, key: string | null): Promise<void> {
  const target = key && b.targetId ? await x.store.target(d.orgId, b.targetId) : null;
  if (target && key) await x.objects(target).remove(key).catch(() => {});
}

/** The keep rule of the database's schedule: old backups beyond it leave their target. */
async function prune(x: BackupDeps & { log: (line: string) => void }, d: DesiredDatabase): Promise<void> {
  if (!d.backupSchedule) return;
  for (const b of pruneSet(await x.store.storedBackups(d.id), d.backupSchedule.keep)) {
    const target = b.targetId ? await x.store.target(d.orgId, b.targetId) : null;
    try {
      if (target && b.objectKey) await x.objects(target).remove(b.objectKey);
      await x.store.updateBackup(b.id, { prunedAt: x.now() });
    } catch (err) {
      x.log(`[database] ${d.name}: could not remove backup ${b.id} from its target: ${message(err)}`);
    }
  }
}
