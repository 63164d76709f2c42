"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api } from "@/lib/fetcher";
import type { FieldErrors } from "@/lib/form";
import { Alert } from "./alert";
import { Field } from "./field";
import { ACTIONS, ListCard } from "./list-card";
import { FormMessages } from "./form-messages";
import { Timestamp } from "./timestamp";
import { useAddForm } from "./use-add-form";

export interface ConfigField {
  name: string;
  label: string;
  /** `password` for a write-only value: never prefilled, cleared after every submit. */
  type?: "text" | "password";
  placeholder?: string;
}

/** A column of the table: an item's field as text, or (`setAt`) a write-only value's "set, updated <when>". */
export type ConfigColumn = { label: string; field: string; mono?: boolean } | { label: string; setAt: string };

/** An item of a list: its id and name, and the fields its columns show. */
type ConfigItem = { id: string; name: string } & Record<string, unknown>;

/**
 * A list of organization-wide objects with write-only parts (backup targets,
 * registry credentials): a table without the secrets, Delete per row, and a
 * form checked with the API's own schema whose 400s show by field. Its columns
 * and fields are plain data, so the server page passes them (org-config.tsx)
 * and they are not in the page's JavaScript.
 */
export function ConfigList({
  id,
  title,
  noun,
  path,
  queryKey,
  columns,
  fields,
  schema,
  empty,
}: {
  id: string;
  title: string;
  /** What one item is called: "backup target". */
  noun: string;
  /** API collection path: "/backup-targets"; GET lists the items (under `queryKey`, as the server prefetched them). */
  path: string;
  queryKey: readonly unknown[];
  columns: ConfigColumn[];
  fields: ConfigField[];
  /** The name of the API's schema of the form in @levelrail/spec/config, loaded on submit (zod stays out of the page's first load). */
  schema: "backupTargetInput" | "registryCredentialInput";
  empty: string;
}) {
  const query = useQuery({ queryKey, queryFn: () => api<ConfigItem[]>(path) });
  const blank = () => Object.fromEntries(fields.map((f) => [f.name, ""]));
  const [values, setValues] = useState<Record<string, string>>(blank);
  const [done, setDone] = useState<string | null>(null);
  const form = useAddForm<ConfigItem>({
    path,
    queryKey,
    failed: `could not add the ${noun}`,
    onAdded: (item) => {
      setValues(blank());
      setDone(`Added ${noun} ${item.name}`);
    },
    // Write-only values are never kept after a try.
    onFailed: () => setValues((v) => ({ ...v, ...Object.fromEntries(fields.filter((f) => f.type === "password").map((f) => [f.name, ""])) })),
  });
  // An error about a field the form does not show (the API's own check) shows under the form.
  const shown = new Set(fields.map((f) => f.name));
  const errors: FieldErrors = Object.fromEntries(Object.entries(form.errors).map(([k, v]) => [shown.has(k) ? k : "form", v]));

  function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    void form.send(values, async () => (await import("@levelrail/spec/config"))[schema]);
  }

  const formTitleId = `${id}-form-title`;
  return (
    <ListCard<ConfigItem>
      id={id}
      title={title}
      source={query}
      empty={empty}
      headers={[...columns.map((c) => c.label), ACTIONS]}
      rowKey={(item) => item.id}
      row={(item) => (
        <tr>
          {columns.map((c) =>
            "setAt" in c ? (
              <td key={c.label}>
                set, updated <Timestamp iso={String(item[c.setAt])} />
              </td>
            ) : (
              <td key={c.label} className={c.mono ? "mono" : undefined}>
                {String(item[c.field] ?? "")}
              </td>
            ),
          )}
          <td>
            <DeleteButton path={`${path}/${encodeURIComponent(item.id)}`} label={`Delete ${noun} ${item.name}`} queryKey={queryKey} />
          </td>
        </tr>
      )}
    >
      <form className="stack" onSubmit={submit} aria-labelledby={formTitleId} noValidate>
        <h3 id={formTitleId}>New {noun}</h3>
        <div className="row">
          {fields.map((f) => (
            <Field key={f.name} id={`${id}-${f.name}`} label={f.label} error={errors[f.name]}>
              {(a11y) => (
                <input
                  {...a11y}
                  name={f.name}
                  type={f.type ?? "text"}
                  value={values[f.name] ?? ""}
                  onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
                  placeholder={f.placeholder}
                  autoComplete={f.type === "password" ? "new-password" : "off"}
                  spellCheck={false}
                />
              )}
            </Field>
          ))}
        </div>
        <FormMessages error={errors.form} done={done} />
        <div className="buttons">
          <button type="submit" disabled={form.pending}>
            Add {noun}
          </button>
        </div>
      </form>
    </ListCard>
  );
}

/** Delete of one row: DELETE `path` (under /api/v1), then the list (`queryKey`) is fetched again. */
export function DeleteButton({ path, label, queryKey }: { path: string; label: string; queryKey: readonly unknown[] }) {
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api(path, { method: "DELETE" }),
    onSuccess: () => qc.invalidateQueries({ queryKey }),
  });
  return (
    <span className="inline">
      <button type="button" className="secondary" onClick={() => remove.mutate()} disabled={remove.isPending} aria-label={label}>
        Delete
      </button>
      <Alert inline error={remove.error} />
    </span>
  );
}
