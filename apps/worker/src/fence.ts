import { type SQL, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";

/**
 * Who leads, as a token the database holds: the leader's row in `worker_heartbeat` names the worker
 * that took the lead last (`runner`, new for every term: `<host>:<pid>:<random>`). A worker that
 * won the lock writes it before any pass runs, so once another worker leads, every fenced write of
 * the one before (a backup, a restore, a hook run still going there) finds a row naming someone
 * else and changes nothing: the work a new leader marked interrupted stays interrupted.
 */
export interface Fence {
  shortName: string;
  runner: string;
  /**
   * The lead's signal, aborted the moment this worker lost the lock: from then on every fenced
   * write is refused here, before the next leader has written its row (the work it was doing
   * reacts to that abort, and its outcome must not land in that window).
   */
  signal?: AbortSignal;
}

/** Thrown by a fenced write of a worker that no longer leads: the pass stops there. */
export class LostLeadError extends Error {
  constructor() {
    super("this worker no longer leads (another worker took the lead): its write was refused");
    this.name = "LostLeadError";
  }
}

/** A WHERE condition true only while `fence` still leads (always true without one: tests, tools; false once its lead's signal aborted). */
export function leads(fence: Fence | undefined): SQL {
  if (!fence) return sql`true`;
  if (fence.signal?.aborted) return sql`false`;
  return sql`exists (select 1 from worker_heartbeat h where h.short_name = ${fence.shortName} and h.runner = ${fence.runner})`;
}

/** After a fenced write that changed nothing: throws if that was the fence (the row may just be gone). */
export async function assertLeads(db: Db, fence: Fence | undefined): Promise<void> {
  if (!fence) return;
  const [row] = await db.execute<{ ok: boolean }>(sql`select ${leads(fence)} as ok`);
  if (!row?.ok) throw new LostLeadError();
}
