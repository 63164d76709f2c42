import type { Sql } from "@levelrail/db/client";

export interface LeaderOptions {
  sql: Sql;
  /** Names the lock: one leader per installation (short name) and database. */
  lockName: string;
  /**
   * Runs while this process leads; returns how to stop. `signal` aborts the moment the lead is lost
   * (the lock's session is gone): work in flight must stop at once, not when it would have ended,
   * since another worker may lead already. A plain `stop()` does not abort it (work in flight ends).
   */
  lead: (signal: AbortSignal) => Promise<() => Promise<void>>;
  /** How often a standby tries the lock, and a leader checks it still holds it. */
  pollMs?: number;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One leader among the workers of one database: a PostgreSQL session advisory lock, held on a
 * connection of its own. A standby tries it every `pollMs`; the leader checks its connection
 * as often, and stops leading the moment it is lost (PostgreSQL released the lock with the
 * session, so another worker may take over). A worker killed outright loses its session at
 * once, and the standby takes over within one poll.
 */
export function runAsLeader(o: LeaderOptions): { stop: () => Promise<void>; isLeader: () => boolean } {
  const pollMs = o.pollMs ?? 500;
  let stopped = false;
  let leading = false;
  let stopLeading: (() => Promise<void>) | null = null;
  let term: AbortController | null = null;
  let release: (() => Promise<void>) | null = null;

  const loop = async () => {
    let standbyLogged = false;
    let downLogged = false;
    while (!stopped) {
      let conn: Awaited<ReturnType<Sql["reserve"]>> | null = null;
      try {
        conn = await o.sql.reserve();
        const reserved = conn;
        downLogged = false;
        while (!stopped) {
          const [row] = await reserved<{ ok: boolean }[]>`select pg_try_advisory_lock(hashtext(${o.lockName})) as ok`;
          if (row?.ok) break;
          if (!standbyLogged) o.log(`[leader] another worker leads (${o.lockName}); standing by`);
          standbyLogged = true;
          await sleep(pollMs);
        }
        if (stopped) break;
        o.log(`[leader] leading (${o.lockName})`);
        standbyLogged = false;
        leading = true;
        release = async () => {
          await reserved`select pg_advisory_unlock(hashtext(${o.lockName}))`.catch(() => {});
        };
        term = new AbortController();
        stopLeading = await o.lead(term.signal);
        while (!stopped) {
          await sleep(pollMs);
          await reserved`select 1`; // throws once the session is gone: the lock went with it
        }
      } catch (err) {
        if (!downLogged) o.log(`[leader] ${leading ? "lost the lead" : "cannot lead"}: ${err instanceof Error ? err.message : String(err)}; retrying every ${pollMs} ms`);
        downLogged = true;
      } finally {
        if (leading) {
          leading = false;
          // Lost (not stopped): whatever runs stops now; the next leader marks it interrupted.
          if (!stopped) term?.abort(new Error("this worker lost the leader lock"));
          term = null;
          const s = stopLeading;
          stopLeading = null;
          await s?.().catch(() => {});
          if (stopped) await release?.();
        }
        release = null;
        conn?.release();
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
