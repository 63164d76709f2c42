import type { ContainerEvent } from "@levelrail/docker";
import { type ReconcileKey, databaseKey, isServiceId, serviceKey } from "@levelrail/spec/keys";
import { DatabaseRoles, Labels } from "@levelrail/spec/naming";

/** Container events that change what its owner's pass sees (a crash, a start by the engine, a removal). */
const WAKE = ["die", "destroy", "stop", "kill", "oom", "start"];

/**
 * The keys a container event wakes, once the informer has taken it in: its service's
 * (`levelrail.service`), or its database's when it is a database's server or a pinned database's
 * client (`levelrail.database` with role `database` or `database-client`); a restore's or a
 * verification's one-off is its own pass's business.
 */
export function wakeKeys(e: ContainerEvent): ReconcileKey[] {
  if (!WAKE.includes(e.action)) return [];
  const keys: ReconcileKey[] = [];
  const svc = e.labels[Labels.service];
  if (svc && isServiceId(svc)) keys.push(serviceKey(svc));
  const db = e.labels[Labels.database];
  // A pinned database's client (on the manager) is how its server is reached: its end wakes the database too.
  if (db && (e.labels[Labels.role] === DatabaseRoles.database || e.labels[Labels.role] === DatabaseRoles.client)) keys.push(databaseKey(db));
  return keys;
}
