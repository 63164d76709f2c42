import type { BackupSchedule, backupScheduleInput } from "@levelrail/spec/database";
import type { ServiceView } from "@levelrail/spec/service";
import { type FieldErrors, numberOrUndefined } from "./form";
import { DEFAULT_SCHEDULE, type ScheduleValues } from "./schedule-values";

// The forms of managed databases: a backup schedule (new database, schedule card) and a service's attachments.
// A schedule's values and defaults are in schedule-values.ts: the New database form loads this on submit.
export { DEFAULT_SCHEDULE, type ScheduleValues } from "./schedule-values";


export const SCHEDULE_FIELDS = ["cron", "targetId", "keep"] as const;
export type ScheduleField = (typeof SCHEDULE_FIELDS)[number];


/** The form's values of an existing schedule (or the defaults). */
export const scheduleValues = (s: BackupSchedule | null | undefined): ScheduleValues =>
  s ? { cron: s.cron, targetId: s.targetId, keep: String(s.keep) } : DEFAULT_SCHEDULE;

/** `cronProblem` of `@levelrail/spec/cron`: a form loads it when a cron is first typed (croner is about 10 kB gzip). */
export type CronCheck = (expr: string) => string | null;

/** The cron field's problem while it is typed (empty says nothing until submit; nor does a form whose `check` has not loaded). */
export const cronHint = (cron: string, check: CronCheck | null): string | undefined =>
  cron.trim() === "" || check === null ? undefined : (check(cron) ?? undefined);

/** The schedule as the API takes it, or each field's first problem (`schema`: the API's, which a form loads on submit). */
export function scheduleInput(v: ScheduleValues, schema: typeof backupScheduleInput): { schedule: BackupSchedule } | { errors: FieldErrors } {
  const parsed = schema.safeParse({ cron: v.cron.trim(), targetId: v.targetId === "" ? undefined : v.targetId, keep: numberOrUndefined(v.keep) });
  if (parsed.success) return { schedule: parsed.data };
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? "form");
    if (errors[field] !== undefined) continue;
    const missing = issue.code === "invalid_type" && issue.input === undefined;
    errors[field] = missing ? (field === "targetId" ? "choose a backup target" : "is required") : issue.message;
  }
  return { errors };
}

/**
 * The schedule field an API error names (`backupSchedule.cron`, `backupSchedule.targetId`, or the
 * whole `backupSchedule`), with its message stripped of that prefix; null for any other field.
 */
export function scheduleApiError(field: string | undefined, message: string): { field: string; message: string } | null {
  if (field === undefined || !(field === "backupSchedule" || field.startsWith("backupSchedule."))) return null;
  const sub = field.split(".")[1];
  const place = (SCHEDULE_FIELDS as readonly string[]).includes(sub ?? "") ? sub! : "cron";
  return { field: place, message: message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message };
}

type DatabaseEnv = ServiceView["databaseEnv"];
/** The key an attachment gets unless the operator types another. */
export const DEFAULT_DATABASE_KEY = "DATABASE_URL";
/** The service's `databaseEnv` with `key` attached to `database` (replacing what that key had). */
export const attached = (current: DatabaseEnv, key: string, database: string): DatabaseEnv => ({ ...current, [key]: { from: database } });
/** The service's `databaseEnv` without `key`. */
export const detached = (current: DatabaseEnv, key: string): DatabaseEnv => Object.fromEntries(Object.entries(current).filter(([k]) => k !== key));
