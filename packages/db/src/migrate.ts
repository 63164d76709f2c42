import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { createDb } from "./client";
import { ensurePanelRole } from "./panel-role";
import { DEFAULT_AUDIT_RETENTION_DAYS, MAX_AUDIT_RETENTION_DAYS, auditPolicy } from "./schema/audit/table";

/**
 * The repo's `drizzle` folder: the first one up from this module that holds drizzle's journal, so
 * it is found both from the source (packages/db/src) and from a bundle (scripts/dist, apps/…/dist).
 */
function findMigrationsDir(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, "drizzle");
    if (existsSync(join(candidate, "meta", "_journal.json"))) return candidate;
    if (dir === dirname(dir)) return join(start, "..", "..", "..", "drizzle");
  }
}

export const MIGRATIONS_DIR = findMigrationsDir();

export interface MigrateOptions {
  /**
   * `LEVELRAIL_AUDIT_RETENTION_DAYS` (default 365): written to `audit_policy` as the owner at every
   * migrate, where `audit_entry_prune()` reads it and the panel's own role cannot change it
   * (docs/security.md).
   */
  auditRetentionDays?: number;
}

/**
 * Apply pending migrations, then write the audit retention; safe to run concurrently with itself
 * (drizzle takes a lock per migration).
 */
export async function runMigrations(url: string, o: MigrateOptions = {}): Promise<void> {
  const days = o.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_AUDIT_RETENTION_DAYS) {
    throw new Error(`LEVELRAIL_AUDIT_RETENTION_DAYS must be a whole number of days from 1 to ${MAX_AUDIT_RETENTION_DAYS}, not ${String(o.auditRetentionDays)}`);
  }
  const { db, sql: client } = createDb(url, { max: 1 });
  try {
    await migrate(db, { migrationsFolder: MIGRATIONS_DIR });
    await db
      .insert(auditPolicy)
      .values({ id: true, retentionDays: days })
      .onConflictDoUpdate({ target: auditPolicy.id, set: { retentionDays: sql`excluded.retention_days` } });
  } finally {
    await client.end();
  }
}

/**
 * The migrations as the owner of the tables, then, given the panel's role, its grants on what they
 * made (`panel-role.ts`): answers the URL the web app and the worker connect with (the owner's when
 * no panel role is given: a DATABASE_URL the operator gave, whose roles are theirs to set up).
 */
export async function migrateForPanel(ownerUrl: string, panel: { role: string; password: string } | null, o: MigrateOptions = {}): Promise<string> {
  await runMigrations(ownerUrl, o);
  return panel ? ensurePanelRole(ownerUrl, panel) : ownerUrl;
}
