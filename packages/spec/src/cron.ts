import { Cron } from "croner";

/** Cron checks with no zod (the browser shows a schedule's next run and checks it as one types); ./database re-exports them. */

/** A 5-field cron expression (minute hour day-of-month month day-of-week), in UTC; null when it is one. */
export function cronProblem(expr: string): string | null {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) return "must have 5 fields (minute hour day-of-month month day-of-week), e.g. 0 3 * * *";
  try {
    const next = new Cron(expr, { paused: true, timezone: "UTC" }).nextRun();
    return next ? null : "never fires";
  } catch (err) {
    return `is not a cron expression: ${(err as Error).message.replace(/^CronPattern: /, "")}`;
  }
}

/** The first due time of `cron` strictly after `after` (UTC), or null when there is none. */
export function nextDue(cron: string, after: Date): Date | null {
  return new Cron(cron, { paused: true, timezone: "UTC" }).nextRun(after);
}
