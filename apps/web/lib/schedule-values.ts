/** A backup schedule as its form holds it: text, checked with the API's own schema on submit. */
export interface ScheduleValues {
  cron: string;
  targetId: string;
  keep: string;
}

/** A new schedule's starting point: every day at 03:00 UTC, a week of backups kept. */
export const DEFAULT_SCHEDULE: ScheduleValues = { cron: "0 3 * * *", targetId: "", keep: "7" };
