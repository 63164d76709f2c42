import { z } from "zod";
import { cronProblem } from "./cron";
import { DEFAULT_POSTGRES_VERSION, MAX_KEEP } from "./lists";
import { imageRef, placementSpec } from "./service";
import { isUuid, resourceName } from "./rules";

export { cronProblem, nextDue } from "./cron";
export { DEFAULT_POSTGRES_VERSION, MAX_KEEP } from "./lists";

/** Managed databases and their backups (docs/operating/databases-and-backups.md): the shapes the API, the worker and the forms share. */

export const DATABASE_ENGINES = ["postgres"] as const;
export type DatabaseEngineId = (typeof DATABASE_ENGINES)[number];

export const DATABASE_PHASES = ["pending", "starting", "running", "failed", "stopped"] as const;
export type DatabasePhase = (typeof DATABASE_PHASES)[number];

export const BACKUP_STATUSES = ["running", "verified", "unverified", "failed", "interrupted"] as const;
export type BackupStatus = (typeof BACKUP_STATUSES)[number];
/** Where a running backup is. */
export type BackupStep = "queued" | "dumping" | "verifying";

export type RestoreMode = "into" | "replace";
export type RestoreStatus = "running" | "succeeded" | "failed" | "interrupted";

/** PostgreSQL major versions a database may run (the image decides which it supports). */
export const POSTGRES_VERSIONS = { min: 12, max: 19 } as const;

export const cronExpression = z
  .string({ error: "must be a string" })
  .max(200, "must be at most 200 characters")
  .superRefine((v, ctx) => {
    const problem = cronProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const backupScheduleInput = z
  .object({
    cron: cronExpression,
    targetId: z.string({ error: "must be a backup target's id" }).refine(isUuid, "must be a backup target's id"),
    keep: z.number({ error: "must be a whole number from 1 to 100" }).int("must be a whole number from 1 to 100").min(1, "must be at least 1").max(MAX_KEEP, `must be at most ${MAX_KEEP}`),
  })
  .strict();
export type BackupSchedule = z.infer<typeof backupScheduleInput>;

export const postgresVersion = z
  .string({ error: "must be a string like \"17\"" })
  .regex(/^\d{1,2}$/, `must be a PostgreSQL major version from ${POSTGRES_VERSIONS.min} to ${POSTGRES_VERSIONS.max}, like "17"`)
  .refine(
    (v) => Number(v) >= POSTGRES_VERSIONS.min && Number(v) <= POSTGRES_VERSIONS.max,
    `must be a PostgreSQL major version from ${POSTGRES_VERSIONS.min} to ${POSTGRES_VERSIONS.max}`,
  );

export const databaseInput = z
  .object({
    name: resourceName,
    engine: z.enum(DATABASE_ENGINES, { error: "must be postgres" }).default("postgres"),
    version: postgresVersion.default(DEFAULT_POSTGRES_VERSION),
    image: imageRef.optional(),
    backupSchedule: backupScheduleInput.nullable().optional(),
    /**
     * The node labels its server's node must carry (`{}`: the manager's engine, as on one engine).
     * On a swarm only; fixed once made (its volume lives on that node).
     */
    placement: placementSpec.optional(),
  })
  .strict();
export type DatabaseInput = z.infer<typeof databaseInput>;

/** PATCH: only the schedule changes (null removes it; absent leaves it). */
export const databasePatch = z.object({ backupSchedule: backupScheduleInput.nullable().optional() }).strict();

export const backupRequest = z
  .object({ targetId: z.string().refine(isUuid, "must be a backup target's id").optional() })
  .strict();

export const restoreInput = z
  .object({
    backupId: z.string({ error: "is required" }).refine(isUuid, "must be a backup's id"),
    into: resourceName.optional(),
    replace: z.literal(true, { error: "must be true" }).optional(),
    /** Restore a backup whose verification failed anyway (the UI asks first). */
    acceptUnverified: z.boolean().optional(),
  })
  .strict()
  .refine((r) => (r.into === undefined) !== (r.replace === undefined), { message: "give either into (a new database's name) or replace: true", path: ["into"] });
export type RestoreInput = z.infer<typeof restoreInput>;

export const volumeRemoval = z.object({ confirm: z.string({ error: "type the volume's name to confirm" }) }).strict();

/** What a database held when it was dumped (and what its restore must hold): rows per table and the schema. */
export interface InventoryRecord {
  tables: Record<string, number>;
  schema: string[];
}

/** The comparison of a restore with the inventory recorded at dump time. */
export interface BackupVerification {
  at: string;
  ok: boolean;
  /** What differed (or why no comparison could be made); empty when verified. */
  differences: string[];
  /** The sha256 of the object as downloaded for this verification. */
  sha256: string | null;
}

/** Names every difference between what was dumped and what a restore holds (empty: equal). */
export function compareInventories(expected: InventoryRecord, actual: InventoryRecord, limit = 20): string[] {
  const out: string[] = [];
  for (const [table, rows] of Object.entries(expected.tables)) {
    const got = actual.tables[table];
    if (got === undefined) out.push(`table ${table} is missing from the restore`);
    else if (got !== rows) out.push(`table ${table}: ${rows} rows dumped, ${got} restored`);
  }
  for (const table of Object.keys(actual.tables)) if (!(table in expected.tables)) out.push(`table ${table} was not in the dump`);
  const want = new Set(expected.schema);
  const have = new Set(actual.schema);
  for (const line of expected.schema) if (!have.has(line)) out.push(`schema: missing ${line}`);
  for (const line of actual.schema) if (!want.has(line)) out.push(`schema: unexpected ${line}`);
  return out.length > limit ? [...out.slice(0, limit), `… and ${out.length - limit} more`] : out;
}

/** `postgres://<user>:<password>@<host>:5432/<database>`, each part percent-encoded: what an attached service gets. */
/** Percent-encodes everything but RFC 3986's unreserved characters (`encodeURIComponent` leaves `!'()*`). */
export const urlEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);

export function postgresUrl(c: { user: string; password: string; database: string }, host: string, port = 5432): string {
  const e = urlEncode;
  return `postgres://${e(c.user)}:${e(c.password)}@${host}:${port}/${e(c.database)}`;
}
