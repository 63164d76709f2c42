"use client";
import { type FormEvent, useId, useState } from "react";
import type { ZodError } from "zod";
import { ApiError } from "@/lib/fetcher";
import { bareMessage } from "@/lib/form";
import { Alert } from "./alert";

interface Row {
  uid: number;
  key: string;
  value: string;
}

let nextUid = 0;
const toRows = (labels: Record<string, string>): Row[] => Object.entries(labels).map(([key, value]) => ({ uid: nextUid++, key, value }));
/** Rows with neither key nor value are left out. */
const filled = (rows: Row[]) => rows.filter((r) => r.key !== "" || r.value !== "");

/** What the form can tell without the API's rules: a value without a key, a key given twice. */
function shapeErrors(rows: Row[]): Record<number, string> {
  const out: Record<number, string> = {};
  const seen = new Set<string>();
  for (const r of filled(rows)) {
    if (r.key === "") out[r.uid] = "Key: is required";
    else if (seen.has(r.key)) out[r.uid] = `Key: ${r.key} is given twice`;
    seen.add(r.key);
  }
  return out;
}

/** The API schema's issues about `labels.<key>` placed on that key's row; the rest (too many labels) for the form. */
function issueErrors(issues: ZodError["issues"], rows: Row[]): { rows: Record<number, string>; form: string | null } {
  const out: Record<number, string> = {};
  let form: string | null = null;
  for (const issue of issues) {
    const key = issue.path[0] === "labels" && issue.path.length > 1 ? String(issue.path[1]) : null;
    const row = key === null ? undefined : rows.find((r) => r.key === key);
    if (!row) {
      form ??= `labels: ${issue.message}`;
      continue;
    }
    // A bad key carries the key rule's own message inside.
    out[row.uid] ??= issue.code === "invalid_key" ? `Key: ${issue.issues[0]?.message ?? issue.message}` : `Value: ${issue.message}`;
  }
  return { rows: out, form };
}

/**
 * A node's labels as key=value rows: add, edit, remove, and one Save that replaces them whole (the
 * product's own `levelrail.*` labels are not listed and stay). Checked on submit with the API's own
 * schema, loaded then so zod stays out of the page's first load; the API remains the authority.
 */
export function NodeLabelsForm({
  name,
  labels,
  save,
  onDone,
}: {
  name: string;
  labels: Record<string, string>;
  save: (labels: Record<string, string>) => Promise<unknown>;
  onDone: () => void;
}) {
  const id = useId();
  const [rows, setRows] = useState<Row[]>(() => toRows(labels));
  const [rowErrors, setRowErrors] = useState<Record<number, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const edit = (next: Row[]) => {
    setRows(next);
    setRowErrors({});
    setFormError(null);
  };
  const update = (uid: number, patch: Partial<Row>) => edit(rows.map((r) => (r.uid === uid ? { ...r, ...patch } : r)));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const shape = shapeErrors(rows);
    if (Object.keys(shape).length) {
      setRowErrors(shape);
      return;
    }
    const next = Object.fromEntries(filled(rows).map((r) => [r.key, r.value]));
    setBusy(true);
    try {
      const { nodePatchInput } = await import("@levelrail/spec/nodes");
      const parsed = nodePatchInput.safeParse({ labels: next });
      if (!parsed.success) {
        const found = issueErrors(parsed.error.issues, rows);
        setRowErrors(found.rows);
        setFormError(found.form);
        return;
      }
      await save(next);
      onDone();
    } catch (err) {
      const row = err instanceof ApiError && err.field?.startsWith("labels.") ? rows.find((r) => r.key === err.field?.slice("labels.".length)) : undefined;
      if (row && err instanceof ApiError) setRowErrors({ [row.uid]: bareMessage(err.message, err.field) });
      else setFormError(err instanceof ApiError ? err.message : "could not save the labels; try again");
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="stack" onSubmit={submit} aria-label={`Labels of ${name}`} noValidate>
      {rows.length === 0 ? (
        <p className="muted">No labels.</p>
      ) : (
        <div className="env-rows" role="list" aria-label={`Labels of ${name}`}>
          {rows.map((row) => {
            const problem = rowErrors[row.uid];
            const errorId = `${id}-${row.uid}-error`;
            const of = row.key === "" ? "" : ` of ${row.key}`;
            return (
              <div className="env-row" role="listitem" key={row.uid}>
                <input
                  aria-label="Label key"
                  value={row.key}
                  onChange={(e) => update(row.uid, { key: e.target.value })}
                  placeholder="zone"
                  className="mono"
                  spellCheck={false}
                  autoComplete="off"
                  aria-invalid={problem?.startsWith("Key") === true}
                  aria-describedby={problem ? errorId : undefined}
                />
                <input
                  aria-label={`Label value${of}`}
                  value={row.value}
                  onChange={(e) => update(row.uid, { value: e.target.value })}
                  placeholder="eu-1"
                  spellCheck={false}
                  autoComplete="off"
                  aria-invalid={problem?.startsWith("Value") === true}
                  aria-describedby={problem ? errorId : undefined}
                />
                <button type="button" className="secondary" onClick={() => edit(rows.filter((r) => r.uid !== row.uid))} aria-label={row.key === "" ? "Remove label" : `Remove ${row.key}`}>
                  Remove
                </button>
                {problem && (
                  <Alert inline id={errorId} className="env-row-error">
                    {problem}
                  </Alert>
                )}
              </div>
            );
          })}
        </div>
      )}
      <Alert error={formError} />
      <div className="buttons">
        <button type="button" className="secondary" onClick={() => edit([...rows, { uid: nextUid++, key: "", value: "" }])}>
          Add label
        </button>
        <button type="submit" disabled={busy}>
          Save labels
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
