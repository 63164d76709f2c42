import type { SwarmTask } from "@levelrail/docker/swarm";
import { DatabaseRoles, Labels, databaseHelperName, databaseLabels } from "@levelrail/spec/naming";
import type { BackupDeps } from "./backup";
import { READY_TIMEOUT_MS } from "./oneoff";
import { type PinnedSwarm, pinnedServiceSpec } from "./pinned";
import type { RestoreServer } from "./restore";
import type { DesiredDatabase, RestoreRecord } from "./store";

/**
 * The restore server of a database pinned to a node: a one-replica swarm service on the database's
 * node (so the fresh volume is made there, next to the live one), on the database's overlay under
 * its own name, the password from the database's secret. The clients run in the database's client
 * container on the manager, naming that host. Stopping scales it to nothing and waits until its task
 * has ended on the node before the service goes: the database's own server is switched to that
 * volume next, and two servers must never share one.
 */

/** Task states after which the task's container no longer runs. */
const ENDED = new Set(["complete", "shutdown", "failed", "rejected", "orphaned", "remove"]);
const POLL_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PinnedRestoreDeps extends BackupDeps {
  swarm: PinnedSwarm;
  log: (line: string) => void;
  /** How long a stopped task may take to end on its node (default 90 s: PostgreSQL's fast shutdown gets 30). */
  stopTimeoutMs?: number;
}

/** Pure: why the newest of these tasks cannot run (failed, rejected), or null. */
export function taskFailure(tasks: readonly SwarmTask[]): string | null {
  const newest = [...tasks].sort((a, b) => b.updatedAt - a.updatedAt)[0];
  if (!newest || (newest.state !== "failed" && newest.state !== "rejected")) return null;
  return `its task ${newest.state}${newest.error ? `: ${newest.error}` : newest.message ? `: ${newest.message}` : ""}`;
}

export function pinnedRestoreServer(x: PinnedRestoreDeps, d: DesiredDatabase, r: RestoreRecord, clientId: string, secretId: string): RestoreServer {
  const name = databaseHelperName(x.shortName, d.name, "restore", r.id);
  const mine = [`${Labels.instance}=${x.shortName}`, `${Labels.database}=${d.id}`, `${Labels.role}=${DatabaseRoles.restore}`];
  const engine = x.engine(d.engine);
  const base = pinnedServiceSpec(x.shortName, { ...d, volume: r.volume, attachedApps: [] }, engine, [], secretId);
  const labels = databaseLabels(x.shortName, { databaseId: d.id, environmentId: d.environmentId }, DatabaseRoles.restore);
  const spec = { ...base, name, labels, containerLabels: labels, networks: base.networks.map((n) => ({ ...n, aliases: [name] })) };

  /** Scales the service to nothing and waits until its tasks have ended, then removes it. */
  const end = async () => {
    const [service] = (await x.swarm.listServices(mine)).filter((s) => s.name === name);
    if (!service) return;
    await x.swarm.updateService(service.id, service.version, { ...spec, replicas: 0 });
    const deadline = Date.now() + (x.stopTimeoutMs ?? 90_000);
    for (;;) {
      const tasks = await x.swarm.listTasks(service.id);
      if (tasks.every((t) => ENDED.has(t.state))) break;
      if (Date.now() > deadline) throw new Error(`the restore server ${name} did not stop within ${Math.round((x.stopTimeoutMs ?? 90_000) / 1000)} s`);
      await sleep(POLL_MS);
    }
    await x.swarm.removeService(service.id);
  };

  return {
    async start() {
      // A leftover of an attempt cut short goes first. Its volume stays on the node (the manager cannot
      // remove another node's volumes) and is used again: the database in it is emptied once the server answers.
      await end();
      const id = await x.swarm.createService(spec);
      if (id === null) throw new Error(`a swarm service named ${name} exists already; remove it`);
      const deadline = x.now().getTime() + READY_TIMEOUT_MS;
      let detail = "its task has not started";
      for (;;) {
        const tasks = await x.swarm.listTasks(id);
        const failure = taskFailure(tasks);
        if (failure) throw new Error(`the restore server could not start on the database's node: ${failure}`);
        if (tasks.some((t) => t.desiredState === "running" && t.state === "running")) {
          const check = AbortSignal.timeout(5_000);
          if (await engine.ready(clientId, d.credentials, check, name).catch(() => false)) {
            // The volume may be one an attempt cut short half filled (the manager cannot remove it):
            // its database starts empty again, so a retried restore fills it whole.
            await engine.emptyDatabase(clientId, d.credentials, x.signal, name);
            return { containerId: clientId, host: name };
          }
          detail = "not accepting connections yet";
        }
        if (x.now().getTime() > deadline) throw new Error(`the restore server did not accept connections within ${Math.round(READY_TIMEOUT_MS / 1000)} s (${detail})`);
        await sleep(POLL_MS);
      }
    },
    stop: end,
    async discard() {
      await end().catch(() => {});
      x.log(`[database] ${d.name}: the restore's fresh volume ${r.volume} stays on the database's node (the manager cannot remove another node's volumes)`);
    },
  };
}
