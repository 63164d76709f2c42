import { sql as q } from "drizzle-orm";
import type { Db, Sql } from "./client";

/** Channel the worker LISTENs on; the payload is a reconcile key such as `service:<id>`. */
export const DESIRED_CHANNEL = "levelrail_desired";

/** Queue a wake-up; inside a transaction it is delivered at commit. */
export async function notifyDesired(db: Pick<Db, "execute">, key: string): Promise<void> {
  await db.execute(q`select pg_notify(${DESIRED_CHANNEL}, ${key})`);
}

export async function listenDesired(sql: Sql, onKey: (key: string) => void): Promise<() => Promise<void>> {
  const sub = await sql.listen(DESIRED_CHANNEL, (payload) => onKey(payload));
  return () => sub.unlisten();
}

/** Reconcile key of the application controller for one service, by its id (the wire form of `@levelrail/spec/keys`). */
export const serviceKey = (id: string) => `service:${id}`;
