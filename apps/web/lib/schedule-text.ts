import type { BackupSchedule } from "@levelrail/spec/database";
import { formatTime } from "./time-format";

// Apart from database-format.ts: the environment page's database list shows schedules, not backups.

/**
 * A schedule in one line: the cron, where to, how many kept and when it fires next (`nextAt`, the
 * database view's `nextBackupAt`: the API works it out, so the pages ship no cron library).
 */
export function scheduleText(schedule: BackupSchedule | null, targetName: string | undefined, nextAt: string | null): string {
  if (!schedule) return "no schedule";
  const to = targetName ?? "a backup target";
  return `${schedule.cron} (UTC) to ${to}, keep ${schedule.keep}${nextAt ? `; next ${formatTime(nextAt)}` : ""}`;
}
