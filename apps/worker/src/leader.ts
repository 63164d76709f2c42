import type { Sql } from "@levelrail/db/client";

export interface LeaderOptions {
  /**
   * Makes the lock's own client: one connection (`max: 1`), ended when the lead is lost and made
   * anew for the next try. Never the worker's pool: a session PostgreSQL ended under a reserved
   * connection hangs the next query on it, and poisons the pool it is released into.
   */
  lockClient: () => Sql;
  /** Names the lock: one leader per installation (short name) and database. */
  lockName: string;
  /**
   * Runs while this process leads; returns how to stop. `signal` aborts the moment the lead is lost
   * (the lock's session is gone or cannot be checked): work in flight must stop at once, not when
   * it would have ended, since another worker may lead already. A plain `stop()` does not abort it.
   */
  lead: (signal: AbortSignal) => Promise<() => Promise<void>>;
  /** How often a standby tries the lock, and a leader checks it still holds it. */
  pollMs?: number;
  /** The longest one check may take before the lead counts as lost (default 4 polls, at least 2 s). */
  checkTimeoutMs?: number;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `work`, or a rejection once `ms` passed (a query on a connection cut off answers never). */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  work.catch(() => {});
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One leader among the workers of one database: a PostgreSQL session advisory lock, held on a
 * connection of its own. A standby tries it every `pollMs`; the leader checks as often that the
 * session holding it is the same one (the client reconnects silently after its session was ended,
 * and a new session holds no lock) and answers in time. The moment either fails it stops leading
 * (its `signal` aborts first): PostgreSQL released the lock with the session, so another worker
 * may take over. A worker killed outright loses its session at once, and the standby takes over
 * within one poll.
 */
export function runAsLeader(o: LeaderOptions): { stop: () => Promise<void>; isLeader: () => boolean } {
  const pollMs = o.pollMs ?? 500;
  const checkMs = o.checkTimeoutMs ?? Math.max(2_000, 4 * pollMs);
  let stopped = false;
  let leading = false;

  const loop = async () => {
    let standbyLogged = false;
    let downLogged = false;
    while (!stopped) {
      const sql = o.lockClient();
      let stopLeading: (() => Promise<void>) | null = null;
      let term: AbortController | null = null;
      let holds = false;
      try {
        let pid = 0;
        while (!stopped) {
          const [row] = await within(checkMs, "the lock", sql<{ ok: boolean; pid: number }[]>`select pg_try_advisory_lock(hashtext(${o.lockName})) as ok, pg_backend_pid() as pid`);
          downLogged = false;
          if (row?.ok) {
            pid = row.pid;
            break;
          }
          if (!standbyLogged) o.log(`[leader] another worker leads (${o.lockName}); standing by`);
          standbyLogged = true;
          await sleep(pollMs);
        }
        if (stopped) break;
        holds = true;
        o.log(`[leader] leading (${o.lockName})`);
        standbyLogged = false;
        leading = true;
        term = new AbortController();
        stopLeading = await o.lead(term.signal);
        while (!stopped) {
          await sleep(pollMs);
          const [row] = await within(checkMs, "the lock's session", sql<{ pid: number }[]>`select pg_backend_pid() as pid`);
          if (row?.pid !== pid) throw new Error("the lock's session ended (the lock went with it)");
        }
      } catch (err) {
        if (!downLogged) o.log(`[leader] ${leading ? "lost the lead" : "cannot lead"}: ${err instanceof Error ? err.message : String(err)}; retrying every ${pollMs} ms`);
        downLogged = true;
      } finally {
        if (leading) {
          leading = false;
          // Lost (not stopped): whatever runs stops now; the next leader marks it interrupted.
          if (!stopped) term?.abort(new Error("this worker lost the leader lock"));
          await stopLeading?.().catch(() => {});
        }
        if (stopped && holds) await within(checkMs, "unlock", sql`select pg_advisory_unlock(hashtext(${o.lockName}))`).catch(() => {});
        // Ending the client ends its session, and any lock it still holds with it.
        await sql.end({ timeout: 1 }).catch(() => {});
      }
      if (!stopped) await sleep(pollMs);
    }
  };
  const done = loop();
  return {
    isLeader: () => leading,
    async stop() {
      stopped = true;
      await done;
    },
  };
}
