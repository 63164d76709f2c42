import { type SQL, sql as q } from "drizzle-orm";
import { type ReconcileKey, formatKey, parseKey } from "@levelrail/spec/keys";

/** Channel the worker LISTENs on; the payload is a reconcile key's wire form (`formatKey`). */
export const DESIRED_CHANNEL = "levelrail_desired";

/** What NOTIFY needs: the database or a transaction (`Db` and a `tx` both are one). */
export interface Notifier {
  execute(query: SQL): PromiseLike<unknown>;
}

/** Queue a wake-up of `key`; inside a transaction it is delivered at commit. */
export async function notifyDesired(db: Notifier, key: ReconcileKey): Promise<void> {
  await db.execute(q`select pg_notify(${DESIRED_CHANNEL}, ${formatKey(key)})`);
}

/** What LISTEN needs of a connection pool; postgres.js's `Sql` (from `createDb`) is one. */
export interface Listener {
  listen(channel: string, onNotify: (payload: string) => void): Promise<{ unlisten(): Promise<void> }>;
}

/** Calls `onKey` with every key notified; a payload that is no reconcile key is ignored. */
export async function listenDesired(sql: Listener, onKey: (key: ReconcileKey) => void): Promise<() => Promise<void>> {
  const sub = await sql.listen(DESIRED_CHANNEL, (payload) => {
    const key = parseKey(payload);
    if (key) onKey(key);
  });
  return () => sub.unlisten();
}

