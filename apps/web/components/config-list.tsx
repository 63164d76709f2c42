"use client";
import { type UseQueryResult, useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import type { ZodType } from "zod";
import { ApiError, api } from "@/lib/fetcher";
import { type FieldErrors, bareMessage, topField } from "@/lib/form";
import { Alert } from "./alert";
import { Field } from "./field";
import { ACTIONS, ListCard } from "./list-card";
import { FormMessages } from "./form-messages";

export interface ConfigField {
  name: string;
  label: string;
  /** `password` for a write-only value: never prefilled, cleared after every submit. */
  type?: "text" | "password";
  placeholder?: string;
}

export interface ConfigColumn<T> {
  label: string;
  cell: (item: T) => ReactNode;
  mono?: boolean;
}

/**
 * A list of organization-wide objects with write-only parts (backup targets,
 * registry credentials): a table without the secrets, Delete per row, and a
 * form checked with the API's own schema whose 400s show by field.
 */
export function ConfigList<T extends { id: string; name: string }>({
  id,
  title,
  noun,
  path,
  queryKey,
  query,
  columns,
  fields,
  schema,
  empty,
}: {
  id: string;
  title: string;
  /** What one item is called: "backup target". */
  noun: string;
  /** API collection path: "/backup-targets". */
  path: string;
  queryKey: readonly unknown[];
  query: UseQueryResult<T[]>;
  columns: ConfigColumn<T>[];
  fields: ConfigField[];
  /** The API's schema of the form, loaded on submit (zod stays out of the page's first load). */
  schema: () => Promise<ZodType>;
  empty: string;
}) {
  const qc = useQueryClient();
  const blank = () => Object.fromEntries(fields.map((f) => [f.name, ""]));
  const [values, setValues] = useState<Record<string, string>>(blank);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<string | null>(null);
  const shown = new Set(fields.map((f) => f.name));
  const placed = (e: FieldErrors): FieldErrors => Object.fromEntries(Object.entries(e).map(([k, v]) => [shown.has(k) ? k : "form", v]));

  const create = useMutation({
    mutationFn: (input: unknown) => api<T>(path, { method: "POST", body: input }),
    onSuccess: async (item) => {
      setValues(blank());
      setDone(`Added ${noun} ${item.name}`);
      await qc.invalidateQueries({ queryKey });
    },
    onError: (err) => {
      // Write-only values are never kept after a try.
      setValues((v) => ({ ...v, ...Object.fromEntries(fields.filter((f) => f.type === "password").map((f) => [f.name, ""])) }));
      setErrors(placed(err instanceof ApiError ? { [topField(err.field)]: bareMessage(err.message, err.field) } : { form: `could not add the ${noun}` }));
    },
  });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    // The schema and the placing of its issues load on submit (zod stays out of the page's first load).
    const [zod, { fieldErrors }] = await Promise.all([schema(), import("@/lib/zod-errors")]);
    const parsed = zod.safeParse(values);
    if (!parsed.success) {
      setErrors(placed(fieldErrors(parsed.error)));
      return;
    }
    setErrors({});
    create.mutate(parsed.data);
  }

  const formTitleId = `${id}-form-title`;
  return (
    <ListCard
      id={id}
      title={title}
      source={query}
      empty={empty}
      headers={[...columns.map((c) => c.label), ACTIONS]}
      rowKey={(item) => item.id}
      row={(item) => (
        <tr>
          {columns.map((c) => (
            <td key={c.label} className={c.mono ? "mono" : undefined}>
              {c.cell(item)}
            </td>
          ))}
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
          <button type="submit" disabled={create.isPending}>
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
