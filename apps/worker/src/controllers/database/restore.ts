import { compareInventories } from "@levelrail/spec/database";
import { DatabaseRoles, databaseHelperName } from "@levelrail/spec/naming";
import { restoredMessage } from "./plan";
import type { Redactor } from "@levelrail/spec/redact";
import { type BackupDeps, hashedBody } from "./backup";
import { removeOneOff, startOneOff } from "./oneoff";
import type { DesiredDatabase, RestoreRecord } from "./store";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Fills the restore's fresh volume from the backup's object (downloaded from the target) through a
 * one-off server, checks it holds what was dumped, and only then hands the volume over: `replace`
 * switches the database to it (the old volume is kept), `into` lets the new database start on it.
 * Until then the database keeps serving its old data. A failure leaves no fresh volume behind and
 * names its reason; a restore cut short by a worker restart starts over.
 */
export async function runRestore(x: BackupDeps, d: DesiredDatabase, r: RestoreRecord, redact: Redactor): Promise<{ ok: boolean; message: string }> {
  // Never the live volume: a replacing restore whose volume is already the database's was switched (the plan finishes it).
  if (r.volume === d.volume && r.mode === "replace") throw new Error("a replacing restore's volume is the database's live volume: it was switched already");
  await x.store.updateRestore(r.id, { runner: x.runner, message: "restoring into a fresh volume" });
  const name = databaseHelperName(x.shortName, d.name, "restore", r.id);
  const fail = async (why: string) => {
    await removeOneOff(x, name, null);
    // The fresh volume goes (for `into`, the new database's own: it must not start half filled).
    await x.runtime.removeVolume(r.volume).catch(() => {});
    const text = `restore failed: ${redact(why)}`;
    await x.store.updateRestore(r.id, { status: "failed", message: text, finished: true });
    return { ok: false, message: text };
  };
  const b = r.backupId ? await x.store.backup(r.backupId) : null;
  if (!b?.objectKey || !b.inventory || !b.targetId) return fail("the backup is gone or holds nothing to restore");
  const target = await x.store.target(d.orgId, b.targetId);
  if (!target) return fail("the backup's target was deleted");
  const secretRedact: Redactor = (text) => redact(text).split(target.secretKey).join("[redacted]");
  // Start over from nothing: a leftover of an attempt cut short, and its volume, go first.
  await removeOneOff(x, name, r.volume);
  try {
    const id = await startOneOff(x, d, { name, role: DatabaseRoles.restore, volume: r.volume, credentials: d.credentials });
    const engine = x.engine(d.engine);
    const body = await x.objects(target).download(b.objectKey);
    try {
      const hashed = hashedBody(body);
      await engine.restore(id, d.credentials, hashed.stream, x.signal);
      const sha256 = await hashed.rest();
      if (sha256 !== b.sha256) return fail(`the stored object changed since it was written (its sha256 is ${sha256}, not ${b.sha256})`);
    } finally {
      body.destroy();
    }
    const differences = compareInventories(b.inventory, await engine.inventory(id, d.credentials, x.signal));
    if (differences.length) return fail(`the restored data is not what was dumped: ${differences.slice(0, 3).join("; ")}`);
    await x.runtime.stopContainer(id, 60);
    await removeOneOff(x, name, null);
  } catch (err) {
    return fail(secretRedact(message(err)));
  }
  if (r.mode === "replace") await x.store.switchVolume(d.id, d.orgId, r.volume, d.volume);
  const text = restoredMessage(r, b.createdAt, d.volume);
  await x.store.updateRestore(r.id, { status: "succeeded", message: text, finished: true });
  return { ok: true, message: text };
}
