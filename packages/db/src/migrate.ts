import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { createDb } from "./client";
import { ensurePanelRole } from "./panel-role";

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

/** Apply pending migrations; safe to run concurrently with itself (drizzle takes a lock per migration). */
export async function runMigrations(url: string): Promise<void> {
  const { db, sql } = createDb(url, { max: 1 });
  try {
    await migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await sql.end();
  }
}

/**
 * The migrations as the owner of the tables, then, given the panel's role, its grants on what they
 * made (`panel-role.ts`): answers the URL the web app and the worker connect with (the owner's when
 * no panel role is given: a DATABASE_URL the operator gave, whose roles are theirs to set up).
 */
export async function migrateForPanel(ownerUrl: string, panel: { role: string; password: string } | null): Promise<string> {
  await runMigrations(ownerUrl);
  return panel ? ensurePanelRole(ownerUrl, panel) : ownerUrl;
}
