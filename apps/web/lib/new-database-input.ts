import type { BackupSchedule } from "@levelrail/spec/database";
import { scheduleApiError, scheduleInput } from "./database-form";
import { ApiError } from "./fetcher";
import { type FieldErrors, bareMessage, topField } from "./form";
import { issueErrors } from "./zod-errors";
import { parsePlacement } from "./scale-form";
import type { ScheduleValues } from "./schedule-values";

// The New database form's checks and error placing (components/databases-section.tsx), loaded with
// the API's schemas when the form is sent: they stay out of the environment page's first load.

/** The New database form's values, as typed. */
export interface NewDatabaseValues {
  name: string;
  version: string;
  image: string;
  /** Node labels, `key=value` a line (a swarm only); empty: the manager's engine. */
  placement: string;
}

const FIELDS = new Set(["name", "version", "image", "placement", "cron", "targetId", "keep"]);

/** The form's values as the API takes them, checked with the API's own schemas (`spec`, loaded on submit: zod stays out of the page). */
export function toInput(
  v: NewDatabaseValues,
  scheduled: boolean,
  schedule: ScheduleValues,
  spec: typeof import("@levelrail/spec/database"),
): { input: unknown } | { errors: FieldErrors } {
  const s = scheduled ? scheduleInput(schedule, spec.backupScheduleInput) : { schedule: null };
  const typed = parsePlacement(v.placement);
  const placement = "placement" in typed && Object.keys(typed.placement).length > 0 ? typed.placement : undefined;
  const parsed = spec.databaseInput.safeParse({ name: v.name, engine: "postgres", version: v.version.trim(), image: v.image.trim() === "" ? undefined : v.image.trim(), placement });
  const errors: FieldErrors = {
    ...(parsed.success ? {} : issueErrors(parsed.error.issues)),
    ...("error" in typed ? { placement: typed.error } : {}),
    ...("errors" in s ? s.errors : {}),
  };
  if (!parsed.success || "errors" in s || "error" in typed) return { errors };
  const backupSchedule: BackupSchedule | null = s.schedule;
  return { input: { ...parsed.data, ...(backupSchedule ? { backupSchedule } : {}) } };
}

/** Where the API's refusal of the create shows: on the field it names (a schedule's too), else under the form. */
export function apiErrors(err: unknown): FieldErrors {
  if (!(err instanceof ApiError)) return { form: "could not create the database" };
  const placed = scheduleApiError(err.field, err.message);
  if (placed) return { [placed.field]: placed.message };
  const field = topField(err.field);
  return { [FIELDS.has(field) ? field : "form"]: FIELDS.has(field) ? bareMessage(err.message, err.field) : err.message };
}
