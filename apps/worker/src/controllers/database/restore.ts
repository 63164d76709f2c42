import { compareInventories } from "@levelrail/spec/database";
import { DatabaseRoles, databaseHelperName } from "@levelrail/spec/naming";
import { restoredMessage } from "./plan";
import type { Redactor } from "@levelrail/spec/redact";
import { type BackupDeps, hashedBody } from "./backup";
import { removeOneOff, startOneOff } from "./oneoff";
import type { DesiredDatabase, RestoreRecord } from "./store";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The one-off server a restore fills: where its clients run (`containerId`) and, when the server is
 * elsewhere, the host they name. On one engine a container on the restore's volume; for a database
 * pinned to a node, a swarm service on that node (`pinned-restore.ts`).
 */
export interface RestoreServer {
  /** Starts it on the restore's fresh volume (a leftover of an attempt cut short goes first) and answers once it accepts connections. */
  start(): Promise<{ containerId: string; host?: string }>;
  /** Stops it cleanly and removes it, the filled volume kept. */
  stop(): Promise<void>;
  /** Removes it and, where it can, the fresh volume (the restore failed); never throws. */
  discard(): Promise<void>;
}

/** A one-off container of the database's image on the restore's volume, on the worker's engine. */
export function containerRestoreServer(x: BackupDeps, d: DesiredDatabase, r: RestoreRecord): RestoreServer {
  const name = databaseHelperName(x.shortName, d.name, "restore", r.id);
  let id: string | null = null;
  return {
    async start() {
      await removeOneOff(x, name, r.volume);
      id = await startOneOff(x, d, { name, role: DatabaseRoles.restore, volume: r.volume, credentials: d.credentials });
      return { containerId: id };
    },
    async stop() {
      if (id) await x.runtime.stopContainer(id, 60);
      await removeOneOff(x, name, null);
    },
    async discard() {
      await removeOneOff(x, name, null);
      // The fresh volume goes (for `into`, the new database's own: it must not start half filled).
      await x.runtime.removeVolume(r.volume).catch(() => {});
    },
  };
}

/**
 * Fills the restore's fresh volume from the backup's object (downloaded from the target) through a
 * one-off server, checks it holds what was dumped, and only then hands the volume over: `replace`
 * switches the database to it (the old volume is kept), `into` lets the new database start on it.
 * Until then the database keeps serving its old data. A failure leaves no fresh volume behind (on
 * the worker's engine) and names its reason; a restore cut short by a worker restart starts over.
 */
export async function runRestore(x: BackupDeps, d: DesiredDatabase, r: RestoreRecord, redact: Redactor, server: RestoreServer = containerRestoreServer(x, d, r)): Promise<{ ok: boolean; message: string }> {
  // Never the live volume: a replacing restore whose volume is already the database's was switched (the plan finishes it).
  if (r.volume === d.volume && r.mode === "replace") throw new Error("a replacing restore's volume is the database's live volume: it was switched already");
  await x.store.updateRestore(r.id, { runner: x.runner, message: "restoring into a fresh volume" });
  const fail = async (why: string) => {
    await server.discard();
    const text = `restore failed: ${redact(why)}`;
    await x.store.updateRestore(r.id, { status: "failed", message: text, finished: true });
    return { ok: false, message: text };
  };
  const b = r.backupId ? await x.store.backup(r.backupId) : null;
  if (!b?.objectKey || !b.inventory || !b.targetId) return fail("the backup is gone or holds nothing to restore");
  const target = await x.store.target(d.orgId, b.targetId);
  if (!target) return fail("the backup's target was deleted");
  const secretRedact: Redactor = (text) => redact(text).split(target.secretKey).join("[redacted]");
  try {
    const { containerId: id, host } = await server.start();
    const engine = x.engine(d.engine);
    const body = await x.objects(target).download(b.objectKey);
    try {
      const hashed = hashedBody(body);
      await engine.restore(id, d.credentials, hashed.stream, x.signal, host);
      const sha256 = await hashed.rest();
      if (sha256 !== b.sha256) return fail(`the stored object changed since it was written (its sha256 is ${sha256}, not ${b.sha256})`);
    } finally {
      body.destroy();
    }
    const differences = compareInventories(b.inventory, await engine.inventory(id, d.credentials, x.signal, host));
    if (differences.length) return fail(`the restored data is not what was dumped: ${differences.slice(0, 3).join("; ")}`);
    await server.stop();
  } catch (err) {
    return fail(secretRedact(message(err)));
  }
  if (r.mode === "replace") await x.store.switchVolume(d.id, d.orgId, r.volume, d.volume);
  const text = restoredMessage(r, b.createdAt, d.volume);
  await x.store.updateRestore(r.id, { status: "succeeded", message: text, finished: true });
  return { ok: true, message: text };
}
