"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import type { FormEvent } from "react";
import { ApiError, api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { type Scoped, databaseApi, environmentHref } from "@/lib/paths";
import { withQuery } from "@/lib/queries";
import { Field } from "./field";
import { FormMessages } from "./form-messages";

/**
 * The form "Delete database" opens (DeleteDatabase, database-history.tsx), in its own chunk: a first
 * load shows only the button. What is typed and ticked lives in DeleteDatabase, so Cancel keeps it.
 */
export function DeleteDatabaseForm({
  database,
  confirm,
  onConfirm,
  dropData,
  onDropData,
  error,
  onError,
  onCancel,
}: {
  database: Scoped;
  confirm: string;
  onConfirm: (text: string) => void;
  dropData: boolean;
  onDropData: (drop: boolean) => void;
  error: string | undefined;
  onError: (error: string | undefined) => void;
  onCancel: () => void;
}) {
  const router = useRouter();
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api(withQuery(databaseApi(database), { dropData: dropData ? "true" : null }), { method: "DELETE" }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.databases(database.environmentId) });
      qc.removeQueries({ queryKey: keys.database(database) });
      router.push(environmentHref(database.environmentId));
    },
    onError: (err) => onError(err instanceof ApiError ? err.message : "could not delete the database"),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (confirm !== database.name) return onError(`type ${database.name} to delete it`);
    onError(undefined);
    remove.mutate();
  }

  return (
    <form className="warning stack" onSubmit={submit} aria-label={`Delete ${database.name}`} noValidate>
      <p>Its container goes. Its data volume is kept unless you tick “also delete its data”.</p>
      <Field id="delete-database-confirm" label={`Type ${database.name} to confirm`} error={undefined}>
        {(a) => <input {...a} value={confirm} onChange={(e) => onConfirm(e.target.value)} autoComplete="off" />}
      </Field>
      <label className="check">
        <input type="checkbox" checked={dropData} onChange={(e) => onDropData(e.target.checked)} /> Also delete its data
      </label>
      <FormMessages error={error} />
      <div className="buttons">
        <button type="submit" className="danger" disabled={remove.isPending}>
          Delete {database.name}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
