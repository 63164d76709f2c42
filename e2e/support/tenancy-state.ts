// What two organizations hold, read straight from the database: compared before and after a walk
// of refused requests, it shows that nothing was written (no row added or removed, no reference
// changed, no preference moved).
import { sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";

/** Every table a request of the API may add a tenant's row to (fixed names, never input). */
const TENANT_TABLES = [
  "project",
  "environment",
  "app",
  "service",
  "release",
  "secret",
  "env_var",
  "managed_database",
  "backup",
  "database_restore",
  "database_volume",
  "backup_target",
  "registry_credential",
  "notification_channel",
  "notification_delivery",
  "hook_run",
  "audit_entry",
] as const;

export interface TenancyState {
  rows: Record<string, Record<string, number>>;
  services: unknown[];
  databases: unknown[];
  preferences: unknown[];
  memberships: unknown[];
}

const rowsOf = (r: unknown): Record<string, unknown>[] => [...(r as Iterable<Record<string, unknown>>)];

export async function tenancyState(db: Db, orgIds: string[], userIds: string[]): Promise<TenancyState> {
  const orgs = sql.join(
    orgIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const users = sql.join(
    userIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows: TenancyState["rows"] = {};
  for (const table of TENANT_TABLES) {
    const counted = rowsOf(await db.execute(sql`select org_id::text as org, count(*)::int as n from ${sql.identifier(table)} where org_id in (${orgs}) group by org_id order by org_id`));
    rows[table] = Object.fromEntries(counted.map((r) => [String(r.org), Number(r.n)]));
  }
  const services = rowsOf(
    await db.execute(
      sql`select id, name, image, port, env, database_env, storage_target_id, registry_credential_id, environment_id from service where org_id in (${orgs}) order by id`,
    ),
  );
  const databases = rowsOf(await db.execute(sql`select id, name, backup_schedule, schedule_target_id from managed_database where org_id in (${orgs}) order by id`));
  const preferences = rowsOf(await db.execute(sql`select user_id, environment_id from operator_preference where user_id in (${users}) order by user_id`));
  const memberships = rowsOf(await db.execute(sql`select org_id, user_id, role from membership where user_id in (${users}) order by org_id, user_id`));
  return { rows, services, databases, preferences, memberships };
}
