import type { Db } from "@levelrail/db/client";
import { pruneAudit } from "@levelrail/services/audit/retention";

/**
 * The audit log's retention (`LEVELRAIL_AUDIT_RETENTION_DAYS`), run by the leading worker at start and
 * every `everyMs` (an hour): entries older than the retention go, through the one DELETE the table's
 * trigger lets pass (`pruneAudit`). The database applies the retention the migrate step wrote to
 * `audit_policy` (from the same variable), not one the worker names; `days` only words the log line.
 * A failed run is logged and tried again at the next tick.
 */
export function startAuditRetention(o: { db: Db; days: number; everyMs?: number; log: (line: string) => void }): { stop(): void } {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const n = await pruneAudit(o.db);
      if (n > 0) o.log(`audit retention: deleted ${n} entries older than ${o.days} days`);
    } catch (err) {
      o.log(`audit retention failed (retried in an hour): ${(err as Error).message}`);
    } finally {
      running = false;
    }
  };
  void run();
  const timer = setInterval(() => void run(), o.everyMs ?? 3_600_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
