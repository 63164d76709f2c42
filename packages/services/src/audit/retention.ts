import { sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";

/** `LEVELRAIL_AUDIT_RETENTION_DAYS`' default: entries are kept a year. */
export { DEFAULT_AUDIT_RETENTION_DAYS } from "@levelrail/db/schema/audit";

/** The oldest time an entry is kept at, `days` before `now`. */
export const retentionCutoff = (days: number, now: Date): Date => new Date(now.getTime() - days * 86_400_000);

/**
 * The retention job (run by the worker's leader): deletes the entries older than the retention in
 * `audit_policy`, through `audit_entry_prune()` (a migration's function owned by the role that runs
 * migrations). The caller names no cutoff: the function computes it from `audit_policy`, which the
 * migrate step writes as the owner from `LEVELRAIL_AUDIT_RETENTION_DAYS` and the panel's own database
 * role cannot change; that role may read and insert audit entries but not delete them, and the
 * table's trigger refuses every DELETE but the one that function makes.
 */
export async function pruneAudit(db: Db): Promise<number> {
  const [row] = await db.execute<{ n: string | number }>(sql`select audit_entry_prune() as n`);
  return Number(row?.n ?? 0);
}
