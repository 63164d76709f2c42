import { sql as q } from "drizzle-orm";
import { type ReconcileKey, formatKey, parseKey } from "@levelrail/spec/keys";
import type { Db, Sql } from "./client";

/** Channel the worker LISTENs on; the payload is a reconcile key's wire form (`formatKey`). */
export const DESIRED_CHANNEL = "levelrail_desired";

/** Queue a wake-up of `key`; inside a transaction it is delivered at commit. */
export async function notifyDesired(db: Pick<Db, "execute">, key: ReconcileKey): Promise<void> {
  await db.execute(q`select pg_notify(${DESIRED_CHANNEL}, ${formatKey(key)})`);
}

/** Calls `onKey` with every key notified; a payload that is no reconcile key is ignored. */
export async function listenDesired(sql: Sql, onKey: (key: ReconcileKey) => void): Promise<() => Promise<void>> {
  const sub = await sql.listen(DESIRED_CHANNEL, (payload) => {
    const key = parseKey(payload);
    if (key) onKey(key);
  });
  return () => sub.unlisten();
}

/**
 * @deprecated The old string key by service name. Kept only because the application controller
 * (apps/worker/src/controllers/application/reconcile.ts, being rewritten on another branch to key
 * services by id) still re-exports it; delete it when that rewrite lands. New code uses
 * `serviceKey(id)` from `@levelrail/spec/keys`.
 */
export const serviceKey = (name: string) => `service:${name}`;
