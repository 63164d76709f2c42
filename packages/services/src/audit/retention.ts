import { lt, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";

/** `LEVELRAIL_AUDIT_RETENTION_DAYS`' default: entries are kept a year. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/** The oldest time an entry is kept at, `days` before `now`. */
export const retentionCutoff = (days: number, now: Date): Date => new Date(now.getTime() - days * 86_400_000);

/**
 * The retention job (run by the worker's leader): deletes the entries older than `days`. The table's
 * trigger refuses every DELETE unless the transaction set `levelrail.audit_retention` to a cutoff, and
 * then only of entries older than it; `set_config(…, true)` holds for this transaction only, so no
 * other statement on the pooled connection inherits it.
 */
export async function pruneAudit(db: Db, days: number, now = new Date()): Promise<number> {
  const cutoff = retentionCutoff(days, now);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('levelrail.audit_retention', ${cutoff.toISOString()}, true)`);
    const gone = await tx.delete(auditEntry).where(lt(auditEntry.at, cutoff)).returning({ id: auditEntry.id });
    return gone.length;
  });
}
