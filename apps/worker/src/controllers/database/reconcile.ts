import { parseKey } from "@levelrail/spec/keys";
import { type Redactor, redactError, redactor } from "@levelrail/spec/redact";
import { type Controller, type Pass, type ReconcileResult, UNSLOTTED } from "../../reconcile/controller";
import { TerminalError } from "../../reconcile/errors";
import { planBackup } from "./backup-plan";
import { type ExecuteDeps, execute } from "./execute";
import { executeBackup } from "./execute-backup";
import { observeBackup, observeDatabase } from "./observe";
import { plan } from "./plan";
import { type PinnedDeps, executePinned, isPinned, observePinned, planPinned, tearDownPinned } from "./pinned";
import type { DesiredDatabase } from "./store";

/**
 * What the database controller is given: every engine call it makes as its own ports, the informer,
 * the store, the prober manager; on a swarm, the swarm (for databases pinned to a node).
 */
export type DatabaseControllerOptions = ExecuteDeps & { pinned?: PinnedDeps };

/**
 * Converges managed databases (key `database:<id>`): one server container on the database's volume,
 * joined to the networks of the apps that attach it; restores into fresh volumes; the backup
 * schedule. And runs backups and their verification (key `backup:<id>`). Each pass observes (the
 * store, the container informer, the prober manager), lets a pure plan pick the one next step and
 * executes it. A worker restart loses nothing: a run cut short is marked interrupted, a restore
 * starts over, a due scheduled run is recorded once by its due time.
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

async function reconcileDatabase(x: DatabaseControllerOptions, id: string, pass: Pass): Promise<ReconcileResult | void> {
  const { desired, observed } = await observeDatabase(x, id);
  // Nothing the pass stores or throws holds the database's password (a server's last lines might).
  const redact = redactor(desired.database ? [desired.database.credentials.password] : []);
  try {
    const db = desired.database;
    if (db && isPinned(db)) return await reconcilePinned(x, db, pass, redact);
    if (!db && x.pinned) {
      // A deleted database that was pinned: its swarm objects go first, then what the manager has of it.
      const left = await tearDownPinned({ ...x, ...x.pinned }, id);
      if (left === "pending") return { requeueAfterMs: 2_000 };
      if (left !== "none") x.log(`[database] ${id}: ${left.done}`);
    }
    return await execute(x, desired, plan(desired, observed), pass, redact);
  } catch (err) {
    throw redactError(err, redact);
  }
}

/** A database pinned to a node: a swarm service through the manager (`pinned.ts`); one engine cannot place it. */
async function reconcilePinned(x: DatabaseControllerOptions, db: DesiredDatabase, pass: Pass, redact: Redactor): Promise<ReconcileResult | void> {
  if (!x.pinned) {
    const message = "placement needs a Docker Swarm: this installation runs on one engine; make a database without a placement";
    await x.store.setStatus(db.id, "failed", message, null);
    return;
  }
  const deps = { ...x, ...x.pinned };
  const { desired, observed } = await observePinned(deps, db, x.engine(db.engine));
  return executePinned(deps, desired, observed, planPinned(desired, observed), pass, redact);
}

async function reconcileBackup(x: DatabaseControllerOptions, id: string, pass: Pass): Promise<ReconcileResult | void> {
  const { desired, observed } = await observeBackup(x, id);
  const { backup, database } = desired;
  if (!backup || !database) return;
  const redact = redactor([database.credentials.password]);
  try {
    return await executeBackup(x, backup, database, planBackup(desired, observed), pass, redact);
  } catch (err) {
    throw redactError(err, redact);
  }
}
