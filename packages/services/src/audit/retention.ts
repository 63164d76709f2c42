import { sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";

/** `LEVELRAIL_AUDIT_RETENTION_DAYS`' default: entries are kept a year. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/** The oldest time an entry is kept at, `days` before `now`. */
export const retentionCutoff = (days: number, now: Date): Date => new Date(now.getTime() - days * 86_400_000);

/**
 * The retention job (run by the worker's leader): deletes the entries older than `days`, through
 * `audit_entry_prune` (a migration's function owned by the role that runs migrations): the panel's
 * own database role may read and insert audit entries but not delete them, and the table's trigger
 * refuses every DELETE but the one that function makes (entries older than a cutoff at least a day back).
 */
export async function pruneAudit(db: Db, days: number, now = new Date()): Promise<number> {
  const cutoff = retentionCutoff(days, now);
  const [row] = await db.execute<{ n: string | number }>(sql`select audit_entry_prune(${cutoff.toISOString()}::timestamptz) as n`);
  return Number(row?.n ?? 0);
}
