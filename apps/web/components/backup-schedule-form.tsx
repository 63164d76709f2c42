"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { BackupSchedule } from "@levelrail/spec/database";
import { scheduleText } from "@/lib/schedule-text";
import { ApiError, api } from "@/lib/fetcher";
import type { FieldErrors } from "@/lib/form";
import { keys } from "@/lib/keys";
import { type Scoped, databaseApi } from "@/lib/paths";
import { useDatabase } from "@/lib/database-detail-queries";
import { useEnvironmentBackupTargets } from "@/lib/database-queries";
import { type ScheduleValues, scheduleApiError, scheduleInput, scheduleValues } from "@/lib/database-form";
import type { DatabaseView } from "@/lib/types";
import { FormMessages } from "./form-messages";
import { ScheduleFields } from "./schedule-fields";

/** The database's backup schedule: set, change or remove it (PATCH backupSchedule). */
export function BackupScheduleCard({ database }: { database: Scoped }) {
  const d = useDatabase(database);
  if (!d.data) return null;
  // Remounted when the saved schedule changes, so the form starts from what is saved.
  return <ScheduleForm key={JSON.stringify(d.data.backupSchedule)} database={database} saved={d.data.backupSchedule} nextAt={d.data.nextBackupAt} />;
}

function ScheduleForm({ database, saved, nextAt }: { database: Scoped; saved: BackupSchedule | null; nextAt: string | null }) {
  const qc = useQueryClient();
  const targets = useEnvironmentBackupTargets(database.environmentId);
  const [values, setValues] = useState<ScheduleValues>(scheduleValues(saved));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (backupSchedule: BackupSchedule | null) => api<DatabaseView>(databaseApi(database), { method: "PATCH", body: { backupSchedule } }),
    onSuccess: async (d) => {
      setDone(d.backupSchedule ? "Schedule saved" : "Schedule removed");
      await Promise.all([qc.invalidateQueries({ queryKey: keys.database(database) }), qc.invalidateQueries({ queryKey: keys.databases(database.environmentId) })]);
    },
    onError: (err) => {
      const placed = err instanceof ApiError ? scheduleApiError(err.field, err.message) : null;
      setErrors(placed ? { [placed.field]: placed.message } : { form: err instanceof ApiError ? err.message : "could not save the schedule" });
    },
  });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    // The API's own schema, loaded on submit: zod stays out of the page's first load.
    const { backupScheduleInput } = await import("@levelrail/spec/database");
    const result = scheduleInput(values, backupScheduleInput);
    if ("errors" in result) return setErrors(result.errors);
    setErrors({});
    save.mutate(result.schedule);
  }

  const targetName = targets?.find((t) => t.id === saved?.targetId)?.name;
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="schedule-title" noValidate>
      <h2 id="schedule-title">Backup schedule</h2>
      <p className="muted" data-testid="schedule-summary">
        {saved ? `${scheduleText(saved, targetName, nextAt)}.` : "No schedule: back up now below, or set one here."} Every backup is restored
        into a throwaway copy and compared before it counts as verified.
      </p>
      <ScheduleFields
        idPrefix="schedule"
        values={values}
        errors={errors}
        targets={targets}
        onChange={(key, value) => {
          setDone(null);
          setErrors((er) => ({ ...er, [key]: undefined }));
          setValues((v) => ({ ...v, [key]: value }));
        }}
      />
      <FormMessages error={errors.form} done={done} />
      <div className="buttons">
        <button type="submit" disabled={save.isPending}>
          Save schedule
        </button>
        {saved && (
          <button type="button" className="secondary" disabled={save.isPending} onClick={() => save.mutate(null)}>
            Remove schedule
          </button>
        )}
      </div>
    </form>
  );
}
