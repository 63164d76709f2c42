import type { ManagedContainer } from "@levelrail/docker";
import { backupKey, databaseKey, formatKey } from "@levelrail/spec/keys";
import { DatabaseRoles, Labels, databaseLabels, isBuiltImageName, noSuchImage } from "@levelrail/spec/naming";
import type { Redactor } from "@levelrail/spec/redact";
import type { Pass, ReconcileResult } from "../../reconcile/controller";
import type { ProberManager } from "../application/prober";
import type { BackupDeps } from "./backup";
import { type DatabaseStatus, type Desired, READY_BUDGET_MS, type Step } from "./plan";
import type { DatabaseRuntime } from "./ports";
import type { DatabaseProbeTarget } from "./readiness";
import { runRestore } from "./restore";
import { type DatabaseContainers, attachDatabase, retire } from "./server";
import type { DesiredDatabase } from "./store";

export interface ExecuteDeps extends BackupDeps {
  runtime: DatabaseRuntime;
  /** Told of every container this executor changes, before the pass ends. */
  containers: DatabaseContainers;
  /** Probes the servers outside the passes and wakes the database's key when the answer changes. */
  readiness: Pick<ProberManager<DatabaseProbeTarget>, "register" | "renew" | "forget" | "until" | "result">;
  /** Queues another key of this controller (a backup the database's pass found due or open). */
  wake: (key: string) => void;
  /** The longest one image pull may take (seconds). */
  pullTimeoutSeconds: number;
  log: (line: string) => void;
  /** A service's organization (null: no such service), to tell whose a built image is; absent: a built image's label alone decides. */
  serviceOrgs?: ((serviceId: string) => Promise<string | null>) | undefined;
}

/** Go on at once: the step changed something the next pass must observe. */
const NEXT: ReconcileResult = { requeueAfterMs: 0 };

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Performs one planned step of a database and writes its status once (a pull also announces itself
 * first). Waiting on the engine (a pull, a restore) runs off the runner's slot. Nothing here retries
 * or waits by itself: a failure is thrown for the runner's backoff, readiness is the prober manager's.
 */
export async function execute(x: ExecuteDeps, d: Desired, step: Step, pass: Pass, redact: Redactor): Promise<ReconcileResult | void> {
  const id = d.databaseId;
  const status = (s: DatabaseStatus) => x.store.setStatus(id, s.phase, redact(s.message), s.container);
  const removed = (c: ManagedContainer) => {
    x.containers.forget(c.id);
    x.readiness.forget(c.id);
  };
  switch (step.kind) {
    case "gone":
      return;
    case "teardown":
      for (const c of step.remove) {
        // The server stops cleanly (PostgreSQL's fast shutdown); a one-off holds nothing worth keeping.
        if (c.labels[Labels.role] === DatabaseRoles.database) await retire(x, c);
        else await x.runtime.removeContainer(c.id);
        removed(c);
      }
      for (const v of step.volumes) await x.runtime.removeVolume(v);
      if (step.finish) await x.store.finishTeardown(id);
      return;
    case "remove-volumes":
      for (const v of step.volumes) {
        await x.runtime.removeVolume(v);
        await x.store.volumeRemoved(v);
      }
      return NEXT;
    case "finish-restore":
      await x.store.updateRestore(step.restore.id, { status: "succeeded", message: step.message, finished: true });
      return NEXT;
    case "fail-restore":
      await x.store.updateRestore(step.restore.id, { status: "failed", message: step.message, finished: true });
      return NEXT;
    case "hold":
      for (const b of step.wake) x.wake(formatKey(backupKey(b)));
      return void (await status(step.status));
  }

  const db = d.database;
  if (!db) throw new Error(`plan chose ${step.kind} for a deleted database`);
  switch (step.kind) {
    case "restore": {
      if (step.status) await status(step.status);
      const done = await pass.waiting(() => runRestore(x, db, step.restore, redact));
      x.log(`[database] ${db.name}: ${done.message}`);
      return NEXT; // the switched volume (or the next restore) is read afresh
    }
    case "pull":
      return pull(x, step, status, pass, redact);
    case "create-volume":
      // A volume of the same name made meanwhile answers as it is: the next pass tells whether it is ours.
      await x.runtime.createVolume(step.volume, databaseLabels(x.shortName, { databaseId: id, environmentId: db.environmentId }));
      return NEXT;
    case "retire":
      await status(step.status);
      await retire(x, step.container);
      removed(step.container);
      return NEXT;
    case "create": {
      const created = await x.runtime.createContainer(step.options);
      await x.containers.refresh(created ?? step.options.name);
      if (created === null) {
        // The name is taken: ours (a pass racing) is adopted next pass; anyone else's is never touched.
        const taken = await x.runtime.inspectContainer(step.options.name);
        if (taken && taken.labels[Labels.database] !== id) {
          return void (await status({ phase: "failed", message: `container name ${step.options.name} is taken by a container that is not this database's; remove it`, container: null }));
        }
      }
      await status(step.status);
      return NEXT;
    }
    case "start":
      try {
        await x.runtime.startContainer(step.container.id);
      } finally {
        await x.containers.refresh(step.container.id);
      }
      await status(step.status);
      return NEXT;
    case "join-networks":
      for (const net of step.disconnect) await x.runtime.disconnectNetwork(net, step.container.id);
      for (const net of step.connect) await attachDatabase(x, step.container, net, db.name);
      await x.containers.refresh(step.container.id);
      return NEXT;
    case "await-ready":
      probe(x, db, step.container, step.renew);
      for (const b of step.wake) x.wake(formatKey(backupKey(b)));
      return void (await status(step.status));
    case "running": {
      await recordDueRun(x, db, step.runFor);
      for (const b of step.wake) x.wake(formatKey(backupKey(b)));
      if (step.renew) probe(x, db, step.container, true);
      await status(step.status);
      return step.requeueAfterMs === null ? undefined : { requeueAfterMs: step.requeueAfterMs };
    }
    default: {
      const unknown: never = step;
      throw new Error(`no executor for step ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * Has the prober manager check the server (again): it wakes the database's key when the answer is
 * in, or changes. `host`: the server is elsewhere, checked from inside `c` (a pinned database's client).
 */
export function probe(x: Pick<ExecuteDeps, "readiness" | "now">, db: DesiredDatabase, c: ManagedContainer, renew: boolean, host?: string): void {
  const target: DatabaseProbeTarget = {
    key: formatKey(databaseKey(db.id)),
    containerId: c.id,
    since: x.now().getTime(),
    budgetMs: READY_BUDGET_MS,
    engine: db.engine,
    credentials: db.credentials,
    ...(host ? { host } : {}),
  };
  if (renew) x.readiness.renew(target);
  else x.readiness.register(target);
}

/** Records the scheduled run due at `runFor` (once) and wakes it. */
export async function recordDueRun(x: Pick<ExecuteDeps, "store" | "wake">, db: DesiredDatabase, runFor: Date | null): Promise<void> {
  if (!runFor || !db.backupSchedule) return;
  const run = await x.store.insertScheduled({ databaseId: db.id, orgId: db.orgId, targetId: db.backupSchedule.targetId }, runFor);
  if (run) x.wake(formatKey(backupKey(run)));
}

/** Pulls the database's image off the slot, with a deadline; a failure is the status, then thrown for the runner's backoff. */
export async function pull(x: ExecuteDeps, step: Pick<Extract<Step, { kind: "pull" }>, "image" | "status">, status: (s: DatabaseStatus) => Promise<void>, pass: Pass, redact: Redactor): Promise<ReconcileResult> {
  const { image } = step;
  // A built image is never pulled: its name must not reach a registry (the old names read as Docker Hub's).
  if (isBuiltImageName(x.shortName, image)) {
    await status({ phase: "failed", message: noSuchImage(image), container: null });
    throw new Error(noSuchImage(image));
  }
  await status(step.status);
  try {
    await pass.waiting(() => x.runtime.pullImage(image, null, () => {}, AbortSignal.timeout(x.pullTimeoutSeconds * 1000)));
  } catch (err) {
    const why = `image ${image} could not be pulled: ${redact(message(err))}`;
    await status({ phase: "failed", message: why, container: null });
    throw new Error(why, { cause: err });
  }
  return NEXT;
}
