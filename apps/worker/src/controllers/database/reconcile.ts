import { backupKey, formatKey, parseKey } from "@levelrail/spec/keys";
import { DatabaseRoles, Labels, databaseFilter, databaseHelperName } from "@levelrail/spec/naming";
import { type Redactor, redactor } from "@levelrail/spec/redact";
import { type Controller, type Pass, type ReconcileResult, UNSLOTTED } from "../../reconcile/controller";
import { TerminalError } from "../../reconcile/errors";
import { type BackupDeps, takeBackup, verifyBackup } from "./backup";
import { removeOneOff } from "./oneoff";
import { runRestore } from "./restore";
import { dueRun, pruneSet } from "./schedule";
import { containersOf, convergeNetworks, databaseContainerOptions, ensureVolume, retire, serverName } from "./server";
import type { DesiredDatabase } from "./store";
import { readyMessage } from "./messages";

export interface DatabaseControllerOptions extends BackupDeps {
  /** Queues another key of this controller (a backup the database's pass found due or open). */
  wake: (key: string) => void;
  /** The longest one image pull may take (seconds). */
  pullTimeoutSeconds: number;
  log: (line: string) => void;
}

/** Look again at least this often (a schedule's next run further away is reached by repeated waits). */
const MAX_WAIT_MS = 3_600_000;
/** How long a backup waits for its database to run before it fails. */
const BACKUP_WAIT_MS = 10 * 60_000;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Converges managed databases (key `database:<id>`): one server container on the database's volume,
 * joined to the networks of the apps that attach it; restores into fresh volumes; the backup
 * schedule. And runs backups and their verification (key `backup:<id>`). Reads everything fresh
 * each pass; a worker restart loses nothing (a run cut short is marked interrupted, a restore
 * starts over, a due scheduled run is recorded once by its due time).
 */
export function databaseController(o: DatabaseControllerOptions): Controller {
  return {
    name: "database",
    async reconcile(text, pass = UNSLOTTED): Promise<ReconcileResult | void> {
      const key = parseKey(text);
      if (key?.kind === "database") return reconcileDatabase(o, key.id, pass);
      if (key?.kind === "backup") return reconcileBackup(o, key.id, pass);
      throw new TerminalError(`not a database or backup key: ${JSON.stringify(text)}`);
    },
  };
}

async function teardown(o: DatabaseControllerOptions, id: string): Promise<void> {
  const t = await o.store.teardown(id);
  for (const c of await containersOf(o, id)) await retire(o, c);
  if (t?.dropData) {
    for (const v of await o.runtime.listVolumes(databaseFilter(o.shortName, id))) {
      if (v.labels[Labels.database] === id) await o.runtime.removeVolume(v.name);
    }
  }
  if (t) await o.store.finishTeardown(id);
}

async function reconcileDatabase(o: DatabaseControllerOptions, id: string, pass: Pass): Promise<ReconcileResult | void> {
  const d = await o.store.database(id);
  if (!d) return teardown(o, id);
  const redact = redactor([d.credentials.password]);
  for (const v of d.volumesToRemove) {
    if (v === d.volume) continue;
    await o.runtime.removeVolume(v);
    await o.store.volumeRemoved(v);
  }
  const restore = await o.store.pendingRestore(id);
  if (restore) {
    if (restore.mode === "into") await o.store.setStatus(id, "starting", "restoring the backup into the new database", null);
    const done = await pass.waiting(() => runRestore(o, d, restore, redact));
    o.log(`[database] ${d.name}: ${done.message}`);
    return { requeueAfterMs: 0 }; // the switched volume (or the next restore) is read afresh
  }
  if (d.failedInto) {
    await o.store.setStatus(id, "failed", d.failedInto, null);
    return;
  }
  const server = await converge(o, d, pass, redact);
  if (server === "failed") return { requeueAfterMs: 60_000 };
  let wakeAt: Date | null = null;
  if (server.ready && d.backupSchedule && d.scheduleSince) {
    const due = dueRun(d.backupSchedule.cron, d.scheduleSince, await o.store.lastScheduledFor(id), o.now());
    if (due.runFor) await o.store.insertScheduled({ databaseId: id, orgId: d.orgId, targetId: d.backupSchedule.targetId }, due.runFor);
    wakeAt = due.wakeAt;
  }
  for (const b of await o.store.openBackups(id)) o.wake(formatKey(backupKey(b)));
  if (!server.ready) return { requeueAfterMs: 1000 };
  return wakeAt ? { requeueAfterMs: Math.min(MAX_WAIT_MS, Math.max(0, wakeAt.getTime() - o.now().getTime())) } : undefined;
}

/** Image, volume, the one server container, its networks and readiness; the status says where it is. */
async function converge(o: DatabaseControllerOptions, d: DesiredDatabase, pass: Pass, redact: Redactor): Promise<{ ready: boolean } | "failed"> {
  if (!(await o.runtime.imageId(d.image))) {
    await o.store.setStatus(d.id, "pending", `pulling ${d.image}`, null);
    try {
      await pass.waiting(() => o.runtime.pullImage(d.image, null, () => {}, AbortSignal.timeout(o.pullTimeoutSeconds * 1000)));
    } catch (err) {
      await o.store.setStatus(d.id, "failed", `image ${d.image} could not be pulled: ${redact(message(err))}`, null);
      return "failed";
    }
  }
  await ensureVolume(o, d, d.volume);
  const want = serverName(o, d);
  const servers = await containersOf(o, d.id, DatabaseRoles.database);
  for (const c of servers) {
    if (c.name === want) continue;
    // One server per volume at a time: the old one stops (cleanly) before the new one starts.
    await o.store.setStatus(d.id, "starting", `stopping ${c.name}: its image or data volume changed`, c.name);
    await retire(o, c);
  }
  let c = servers.find((s) => s.name === want) ?? null;
  if (!c) {
    const created = await o.runtime.createContainer(databaseContainerOptions(o, d, { name: want, role: DatabaseRoles.database, volume: d.volume, credentials: d.credentials }));
    if (created === null) {
      await o.store.setStatus(d.id, "failed", `container name ${want} is taken by a container that is not this database's; remove it`, null);
      return "failed";
    }
    c = await o.runtime.inspectContainer(created);
    if (!c) throw new Error(`container ${want} disappeared after it was created`);
  }
  if (c.state === "created" || c.state === "exited") {
    await o.store.setStatus(d.id, "starting", `starting ${want}`, want);
    await o.runtime.startContainer(c.id);
    c = (await o.runtime.inspectContainer(c.id)) ?? c;
  }
  if (c.state !== "running") {
    const tail = (await o.runtime.containerLogs(c.id, 10).catch(() => "")).trim().split("\n").slice(-3).join(" | ");
    await o.store.setStatus(d.id, "starting", redact(`the server is ${c.state}${tail ? `: ${tail}` : ""}`), want);
    return { ready: false };
  }
  await convergeNetworks(o, d, c);
  const ready = await o.engine(d.engine).ready(c.id, d.credentials);
  await o.store.setStatus(
    d.id,
    ready ? "running" : "starting",
    ready ? readyMessage(d.name, o.engine(d.engine).port, d.attachedApps.length) : "waiting for the server to accept connections",
    want,
  );
  return { ready };
}

async function reconcileBackup(o: DatabaseControllerOptions, id: string, pass: Pass): Promise<ReconcileResult | void> {
  const b = await o.store.backup(id);
  if (!b) return;
  const d = await o.store.database(b.databaseId);
  if (!d) return;
  const redact = redactor([d.credentials.password]);
  if (b.status === "running") {
    if (b.runner !== null && b.runner !== o.runner) {
      // Cut short by a worker that stopped: whatever it stored is no backup.
      await removeOneOff(o, databaseHelperName(o.shortName, d.name, "verify", b.id), databaseHelperName(o.shortName, d.name, "verify", b.id));
      const target = b.objectKey && b.targetId ? await o.store.target(d.orgId, b.targetId) : null;
      if (target && b.objectKey) await o.objects(target).remove(b.objectKey).catch(() => {});
      await o.store.updateBackup(id, { status: "interrupted", step: null, runner: null, finishedAt: o.now(), message: "interrupted: the worker stopped while this backup ran; nothing it stored counts (back up again)" });
      return;
    }
    const want = serverName(o, d);
    const server = (await containersOf(o, d.id, DatabaseRoles.database)).find((c) => c.name === want && c.state === "running");
    if (!server || !(await o.engine(d.engine).ready(server.id, d.credentials))) {
      if (o.now().getTime() - b.createdAt.getTime() > BACKUP_WAIT_MS) {
        await o.store.updateBackup(id, { status: "failed", step: null, finishedAt: o.now(), message: "the database did not run within 10 minutes of this backup's request" });
        return;
      }
      await o.store.updateBackup(id, { message: "waiting for the database to accept connections" });
      return { requeueAfterMs: 2000 };
    }
    await pass.waiting(() => takeBackup(o, d, b, server, redact));
    await prune(o, d);
    return;
  }
  if (b.verifyRequestedAt) {
    const target = b.targetId ? await o.store.target(d.orgId, b.targetId) : null;
    if (!target) {
      await o.store.updateBackup(id, { verifyRequestedAt: null, message: "cannot verify: its backup target was deleted" });
      return;
    }
    await o.store.updateBackup(id, { step: "verifying", runner: o.runner, message: "verifying again from the stored object" });
    const v = await pass.waiting(() => verifyBackup(o, d, b, target, redact));
    await o.store.updateBackup(id, {
      status: v.ok ? "verified" : "unverified",
      step: null,
      verification: v,
      verifyRequestedAt: null,
      message: v.ok ? "verified again: restored from the stored object and compared" : `unverified: ${v.differences[0] ?? "the comparison failed"}`,
    });
  }
}

/** The keep rule of the database's schedule: old backups beyond it leave their target. */
async function prune(o: DatabaseControllerOptions, d: DesiredDatabase): Promise<void> {
  if (!d.backupSchedule) return;
  for (const b of pruneSet(await o.store.storedBackups(d.id), d.backupSchedule.keep)) {
    const target = b.targetId ? await o.store.target(d.orgId, b.targetId) : null;
    try {
      if (target && b.objectKey) await o.objects(target).remove(b.objectKey);
      await o.store.updateBackup(b.id, { prunedAt: o.now() });
    } catch (err) {
      o.log(`[database] ${d.name}: could not remove backup ${b.id} from its target: ${message(err)}`);
    }
  }
}
