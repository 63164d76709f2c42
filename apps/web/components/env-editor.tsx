"use client";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { envKeyProblem, envValueProblem } from "@levelrail/spec/checks";
import { ApiError } from "@/lib/fetcher";
import { bareMessage } from "@/lib/form";
import { Alert } from "./alert";

type EnvVars = Record<string, string>;
interface Row {
  uid: number;
  key: string;
  value: string;
  /** Added by "Add variable": its key input takes the focus. */
  fresh?: boolean;
}

let nextUid = 0;
const toRows = (vars: EnvVars): Row[] => Object.entries(vars).map(([key, value]) => ({ uid: nextUid++, key, value }));
const sameVars = (a: EnvVars, b: EnvVars) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
};
/** The rows as a map; rows with neither key nor value are ignored. */
const varsOf = (rows: Row[]): EnvVars => Object.fromEntries(rows.filter((r) => r.key !== "" || r.value !== "").map((r) => [r.key, r.value]));

/** What is wrong with a row, checked with the API's own rules as the operator types; null when nothing is. */
function rowProblem(row: Row, rows: Row[], submitted: boolean): string | null {
  if (row.key === "") return submitted && row.value !== "" ? "Key: is required" : null;
  const key = envKeyProblem(row.key);
  if (key !== undefined) return `Key: ${key}`;
  if (rows.find((r) => r.key === row.key) !== row) return `Key: ${row.key} is defined twice`;
  const value = envValueProblem(row.value);
  if (value !== undefined) return `Value: ${value}`;
  return null;
}

export interface EnvEditorProps {
  /** Heading of the editor; also the accessible name of its region. */
  title: string;
  /** Shown under the heading. */
  description?: ReactNode;
  /** The saved set; the editor starts from it and follows it while there are no unsaved edits. */
  vars: EnvVars;
  /** Replaces the whole set (one PUT or PATCH). */
  save: (vars: EnvVars) => Promise<unknown>;
  /** The API's name of the set, so a 400 about `<field>.KEY` shows next to KEY's row (`vars` or `env`). */
  field: string;
  /** A warning to confirm before saving `next` (e.g. a key another source overrides), or null. */
  warning?: (next: EnvVars, saved: EnvVars) => string | null;
  onSaved?: () => Promise<unknown> | void;
}

/**
 * Key/value rows with add, edit and remove, a "Paste .env" import, keys
 * checked as they are typed, and one Save that replaces the whole set.
 */
export function EnvEditor({ title, description, vars, save, field, warning, onSaved }: EnvEditorProps) {
  const id = useId();
  const [rows, setRows] = useState<Row[]>(() => toRows(vars));
  const [synced, setSynced] = useState<EnvVars>(vars);
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState<{ vars: EnvVars; message: string } | null>(null);
  const [paste, setPaste] = useState("");
  const [pasteError, setPasteError] = useState<string | null>(null);

  const dirty = !sameVars(varsOf(rows), synced);
  // A newer saved set (after a save, or someone else's): follow it unless the operator has unsaved edits.
  if (!sameVars(vars, synced)) {
    setSynced(vars);
    if (!dirty) setRows(toRows(vars));
  }

  const mutation = useMutation({
    mutationFn: save,
    onSuccess: async () => {
      setSaved(true);
      setSubmitted(false);
      await onSaved?.();
    },
    onError: (err) => {
      const prefix = `${field}.`;
      if (err instanceof ApiError && err.field?.startsWith(prefix)) {
        setServerErrors({ [err.field.slice(prefix.length)]: bareMessage(err.message, err.field) });
      } else {
        setFormError(err instanceof ApiError ? err.message : "could not save; try again");
      }
    },
  });

  function edit(next: Row[]) {
    setRows(next);
    setSaved(false);
    setServerErrors({});
    setFormError(null);
    setConfirming(null);
  }
  const update = (uid: number, patch: Partial<Row>) => edit(rows.map((r) => (r.uid === uid ? { ...r, ...patch, fresh: false } : r)));
  const remove = (uid: number) => edit(rows.filter((r) => r.uid !== uid));
  const add = () => edit([...rows, { uid: nextUid++, key: "", value: "", fresh: true }]);

  async function importPaste() {
    // The .env reader loads when it is first used: most visits never paste.
    const { parseEnvLines } = await import("@/lib/env-lines");
    const parsed = parseEnvLines(paste);
    if ("error" in parsed) {
      setPasteError(parsed.error);
      return;
    }
    setPasteError(null);
    const next = rows.filter((r) => r.key !== "" || r.value !== "");
    for (const [key, value] of Object.entries(parsed.env)) {
      const existing = next.findIndex((r) => r.key === key);
      if (existing >= 0) next[existing] = { ...next[existing]!, value };
      else next.push({ uid: nextUid++, key, value });
    }
    edit(next);
    setPaste("");
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    setSubmitted(true);
    setSaved(false);
    if (rows.some((r) => rowProblem(r, rows, true) !== null)) {
      setFormError("fix the marked variables first");
      return;
    }
    // Every row passed the API's key and value rules above (@levelrail/spec/checks, no zod): the map is what envMap accepts.
    const vars = varsOf(rows);
    setFormError(null);
    const message = warning?.(vars, synced) ?? null;
    if (message !== null) {
      setConfirming({ vars, message });
      return;
    }
    mutation.mutate(vars);
  }

  function confirm() {
    if (!confirming) return;
    mutation.mutate(confirming.vars);
    setConfirming(null);
  }

  const titleId = `${id}-title`;
  return (
    <section className="card stack" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {description && <p className="muted">{description}</p>}
      <form className="stack" onSubmit={submit} noValidate>
        {rows.length === 0 ? (
          <p className="muted">No variables.</p>
        ) : (
          <div className="env-rows" role="list" aria-label={`${title} variables`}>
            {rows.map((row) => {
              const problem = rowProblem(row, rows, submitted) ?? serverErrors[row.key] ?? null;
              const errorId = `${id}-${row.uid}-error`;
              const name = row.key === "" ? "" : ` of ${row.key}`;
              return (
                <div className="env-row" role="listitem" key={row.uid}>
                  <input
                    aria-label="Key"
                    value={row.key}
                    onChange={(e) => update(row.uid, { key: e.target.value })}
                    placeholder="KEY"
                    className="mono"
                    spellCheck={false}
                    autoComplete="off"
                    autoFocus={row.fresh === true}
                    aria-invalid={problem?.startsWith("Key") === true}
                    aria-describedby={problem ? errorId : undefined}
                  />
                  <textarea
                    aria-label={`Value${name}`}
                    value={row.value}
                    onChange={(e) => update(row.uid, { value: e.target.value })}
                    placeholder="value"
                    rows={Math.min(6, row.value.split("\n").length)}
                    spellCheck={false}
                    autoComplete="off"
                    aria-invalid={problem?.startsWith("Value") === true}
                    aria-describedby={problem ? errorId : undefined}
                  />
                  <button type="button" className="secondary" onClick={() => remove(row.uid)} aria-label={row.key === "" ? "Remove variable" : `Remove ${row.key}`}>
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
        <div className="buttons">
          <button type="button" className="secondary" onClick={add}>
            Add variable
          </button>
        </div>
        <div className="field">
          <label htmlFor={`${id}-paste`}>Paste .env</label>
          <textarea
            id={`${id}-paste`}
            value={paste}
            onChange={(e) => setPaste(e.target.value)}
            rows={3}
            spellCheck={false}
            placeholder={"# KEY=value per line\nexport LOG_LEVEL=\"info\""}
            aria-invalid={pasteError !== null}
            aria-describedby={pasteError ? `${id}-paste-error` : undefined}
          />
          {pasteError && (
            <Alert inline id={`${id}-paste-error`}>
              {pasteError}
            </Alert>
          )}
          <div className="buttons">
            <button type="button" className="secondary" onClick={() => void importPaste()} disabled={paste.trim() === ""}>
              Add from .env
            </button>
          </div>
        </div>
        {confirming && (
          <Alert warning>
            <p>{confirming.message}</p>
            <div className="buttons">
              <button type="button" onClick={confirm}>
                Save anyway
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming(null)}>
                Cancel
              </button>
            </div>
          </Alert>
        )}
        {formError && (
          <Alert>
            {formError}
          </Alert>
        )}
        <div className="buttons">
          <button type="submit" disabled={mutation.isPending || confirming !== null}>
            Save env
          </button>
          {dirty && !mutation.isPending && <span className="muted">Unsaved changes</span>}
          {saved && !dirty && (
            <span className="success" role="status">
              Saved
            </span>
          )}
        </div>
      </form>
    </section>
  );
}
