"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "@/components/link";
import { type FormEvent, useState } from "react";
import { backupDetail } from "@/lib/database-format";
import { ApiError, api } from "@/lib/fetcher";
import { checkedName } from "@/lib/checked-name";
import { type FieldErrors, bareMessage } from "@/lib/form";
import { formatTime } from "@/lib/format";
import { keys } from "@/lib/keys";
import { type Scoped, databaseApi, databaseHref } from "@/lib/paths";
import type { BackupView, DatabaseView, RestoreView } from "@/lib/types";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { Alert } from "./alert";

type Mode = "into" | "replace";
interface RestoreBody {
  backupId: string;
  into?: string;
  replace?: true;
  acceptUnverified?: true;
}

/**
 * "Restore…" of one backup: into a new database (its name), or replacing this database's data (its
 * name typed to confirm; the old volume is kept). An unverified backup says what differed and
 * needs "restore anyway", which sends `acceptUnverified`.
 */
export function RestoreForm({ database, backup, onClose }: { database: Scoped; backup: BackupView; onClose: () => void }) {
  const qc = useQueryClient();
  const [mode, setMode] = useState<Mode>("into");
  const [into, setInto] = useState("");
  const [confirm, setConfirm] = useState("");
  const [anyway, setAnyway] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<{ database: DatabaseView; mode: Mode } | null>(null);
  const unverified = backup.status !== "verified";
  const restore = useMutation({
    mutationFn: (body: RestoreBody) => api<{ restore: RestoreView; database: DatabaseView }>(databaseApi(database, "/restore"), { method: "POST", body }),
    onSuccess: async (r) => {
      setDone({ database: r.database, mode: r.restore.mode });
      await Promise.all([qc.invalidateQueries({ queryKey: keys.database(database) }), qc.invalidateQueries({ queryKey: keys.databases(database.environmentId) })]);
    },
    onError: (err) => {
      if (!(err instanceof ApiError)) return setErrors({ form: "could not start the restore" });
      const field = err.field === "into" ? "into" : err.field === "acceptUnverified" ? "anyway" : "form";
      setErrors({ [field]: field === "form" ? err.message : bareMessage(err.message, err.field) });
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    const problems: FieldErrors = {};
    let body: RestoreBody = { backupId: backup.id };
    if (mode === "into") {
      const name = checkedName(into, (m) => (problems.into = m));
      if (name !== null) body = { ...body, into: name };
    } else {
      if (confirm !== database.name) problems.confirm = `type ${database.name} to replace its data`;
      body = { ...body, replace: true };
    }
    if (unverified && !anyway) problems.anyway = "this backup is not verified: tick “restore anyway” to restore it";
    if (Object.values(problems).some((p) => p !== undefined)) return setErrors(problems);
    setErrors({});
    restore.mutate(unverified ? { ...body, acceptUnverified: true } : body);
  }

  return (
    <form className="stack output-panel" onSubmit={submit} aria-labelledby="restore-title" noValidate>
      <h3 id="restore-title">Restore the backup of {formatTime(backup.startedAt ?? backup.createdAt)}</h3>
      {unverified && (
        <Alert warning>
          <p>
            This backup is <strong>{backup.status}</strong>: restoring it may not give back what was dumped. {backupDetail(backup)}
          </p>
          <label className="check">
            <input type="checkbox" checked={anyway} onChange={(e) => setAnyway(e.target.checked)} aria-describedby="restore-anyway-error" /> Restore anyway
          </label>
          {errors.anyway && (
            <Alert inline id="restore-anyway-error">
              {errors.anyway}
            </Alert>
          )}
        </Alert>
      )}
      <fieldset className="field">
        <legend>Restore into</legend>
        <label className="check">
          <input type="radio" name="restore-mode" checked={mode === "into"} onChange={() => setMode("into")} /> a new database
        </label>
        <label className="check">
          <input type="radio" name="restore-mode" checked={mode === "replace"} onChange={() => setMode("replace")} /> {database.name}, replacing its
          current data
        </label>
      </fieldset>
      {mode === "into" ? (
        <Field id="restore-into" label="New database name" error={errors.into} hint="A new database of this environment; attach it where you like once it runs.">
          {(a) => <input {...a} value={into} onChange={(e) => setInto(e.target.value)} autoComplete="off" />}
        </Field>
      ) : (
        <Field
          id="restore-confirm"
          label={`Type ${database.name} to confirm`}
          error={errors.confirm}
          hint="The backup is restored into a fresh volume first; the database switches to it only when that succeeded, and its current volume is kept until you remove it."
        >
          {(a) => <input {...a} value={confirm} onChange={(e) => setConfirm(e.target.value)} autoComplete="off" />}
        </Field>
      )}
      <FormMessages
        error={errors.form}
        done={
          done &&
          (done.mode === "into" ? (
            <>
              Restoring into <Link href={databaseHref(done.database)}>{done.database.name}</Link>; it starts once the restore is done.
            </>
          ) : (
            "Restoring into a fresh volume; the restores below show how it goes."
          ))
        }
      />
      <div className="buttons">
        <button type="submit" className={mode === "replace" ? "danger" : undefined} disabled={restore.isPending}>
          {mode === "into" ? "Restore into new database" : `Replace ${database.name}'s data`}
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
