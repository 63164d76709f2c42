"use client";
import Link from "@/components/link";
import { useEffect, useRef, useState } from "react";
import { MAX_KEEP } from "@levelrail/spec/lists";
import type { FieldErrors } from "@/lib/form";
import { type CronCheck, type ScheduleValues, cronHint } from "@/lib/database-form";
import type { BackupTargetItem } from "@/lib/types";
import { Field } from "./field";

/**
 * The cron checker, loaded once the cron differs from what the form started with (a saved
 * schedule or the default, both valid): croner stays out of the page's first load.
 */
function useCronCheck(cron: string): CronCheck | null {
  const [check, setCheck] = useState<CronCheck | null>(null);
  const first = useRef(cron);
  const typed = cron !== first.current;
  useEffect(() => {
    if (typed && check === null) void import("@levelrail/spec/cron").then((m) => setCheck(() => m.cronProblem));
  }, [typed, check]);
  return check;
}

/** A backup schedule's controls: cron (checked as it is typed), the backup target and how many backups to keep. */
export function ScheduleFields({
  idPrefix,
  values,
  errors,
  targets,
  onChange,
}: {
  idPrefix: string;
  values: ScheduleValues;
  errors: FieldErrors;
  /** The organization's backup targets (undefined while they load). */
  targets: BackupTargetItem[] | undefined;
  onChange: (key: keyof ScheduleValues, value: string) => void;
}) {
  const check = useCronCheck(values.cron);
  const cronError = errors.cron ?? cronHint(values.cron, check);
  return (
    <>
      <Field id={`${idPrefix}-cron`} label="Cron" error={cronError} hint="minute hour day-of-month month day-of-week, in UTC (0 3 * * *: every day at 03:00)">
        {(a) => <input {...a} className="mono" value={values.cron} onChange={(e) => onChange("cron", e.target.value)} autoComplete="off" spellCheck={false} />}
      </Field>
      <div className="row">
        <Field id={`${idPrefix}-target`} label="Backup target" error={errors.targetId}>
          {(a) => (
            <select {...a} value={values.targetId} onChange={(e) => onChange("targetId", e.target.value)}>
              <option value="">Choose a backup target</option>
              {(targets ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={`${idPrefix}-keep`} label="Keep" error={errors.keep} hint={`the newest 1 to ${MAX_KEEP} backups`}>
          {(a) => <input {...a} value={values.keep} onChange={(e) => onChange("keep", e.target.value)} inputMode="numeric" />}
        </Field>
      </div>
      {targets?.length === 0 && (
        <p className="muted">
          <Link href="/settings/backup-targets">Add a backup target in Settings.</Link>
        </p>
      )}
    </>
  );
}
