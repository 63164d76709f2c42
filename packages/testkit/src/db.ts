import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { runMigrations } from "@levelrail/db/migrate";

/** A brand-new, migrated database on the server of `baseUrl`, dropped by `drop()`. */
export async function freshDatabase(baseUrl: string, label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `lrtest_${label.replace(/[^a-z0-9]/g, "_")}_${randomBytes(3).toString("hex")}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  await runMigrations(url.toString());
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists "${name}" with (force)`);
      await a.end();
    },
  };
}

export function requireDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL must point at a PostgreSQL server (npm test sets it)");
  return url;
}
