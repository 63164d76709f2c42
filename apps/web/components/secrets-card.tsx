"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { envKeyProblem, envValueProblem } from "@levelrail/spec/checks";
import { ApiError, api } from "@/lib/fetcher";
import { type FieldErrors, bareMessage } from "@/lib/form";
import { keys } from "@/lib/keys";
import { useSecrets } from "@/lib/service-queries";
import type { SecretItem } from "@/lib/types";
import { Alert } from "./alert";
import { Field } from "./field";
import { ACTIONS, ListCard } from "./list-card";
import { Timestamp } from "./timestamp";
import { FormMessages } from "./form-messages";
import { type Scoped, serviceApi } from "@/lib/paths";

/**
 * The service's secrets: keys and when they changed, never their values. Set
 * or replace one through a password field; the value is cleared once sent.
 */
export function SecretsCard({ service }: { service: Scoped }) {
  const qc = useQueryClient();
  const secrets = useSecrets(service);
  const [key, setKey] = useState("");
  const [value, setValue] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<string | null>(null);
  const valueRef = useRef<HTMLInputElement>(null);
  const path = (k: string) => serviceApi(service, `/secrets/${encodeURIComponent(k)}`);
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: keys.secrets(service) }),
      qc.invalidateQueries({ queryKey: keys.effectiveEnv(service) }),
      qc.invalidateQueries({ queryKey: keys.drift(service) }),
    ]);

  const put = useMutation({
    mutationFn: (s: { key: string; value: string }) => api<SecretItem>(path(s.key), { method: "PUT", body: { value: s.value } }),
    onSuccess: async (saved) => {
      setKey("");
      setDone(`${saved.key} set`);
      await refresh();
    },
    onError: (err) => {
      const field = err instanceof ApiError && (err.field === "key" || err.field === "value") ? err.field : "form";
      setErrors({ [field]: err instanceof ApiError ? bareMessage(err.message, err.field) : "could not save the secret" });
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setDone(null);
    const problems: FieldErrors = {
      key: key === "" ? "is required" : envKeyProblem(key),
      value: envValueProblem(value),
    };
    if (problems.key || problems.value) {
      setErrors(problems);
      return;
    }
    setErrors({});
    put.mutate({ key, value });
    // The value leaves the page with the request: it is never kept or shown again.
    setValue("");
  }

  function replace(k: string) {
    setKey(k);
    setValue("");
    setErrors({});
    setDone(null);
    valueRef.current?.focus();
  }

  return (
    <ListCard
      id="secrets"
      title="Secrets"
      before={<p className="muted">Write-only: once saved, a value is never shown again. Secrets override the env tiers.</p>}
      source={secrets}
      empty="No secrets."
      headers={["Key", "Value", ACTIONS]}
      rowKey={(s) => s.key}
      row={(s) => (
        <tr>
          <td className="key-cell">{s.key}</td>
          <td className="muted">
            set, updated <Timestamp iso={s.updatedAt} />
          </td>
          <td>
            <span className="inline">
              <button type="button" className="secondary" onClick={() => replace(s.key)} aria-label={`Replace ${s.key}`}>
                Replace
              </button>
              <DeleteSecret secretKey={s.key} path={path(s.key)} onDeleted={refresh} />
            </span>
          </td>
        </tr>
      )}
    >
      <form className="stack" onSubmit={submit} aria-label="Set a secret" noValidate>
        <div className="row">
          <Field id="secret-key" label="Key" error={errors.key}>
            {(a11y) => (
              <input
                {...a11y}
                className="mono"
                value={key}
                onChange={(e) => {
                  setKey(e.target.value);
                  setDone(null);
                  setErrors((er) => ({ ...er, key: e.target.value === "" ? undefined : envKeyProblem(e.target.value) }));
                }}
                autoComplete="off"
                spellCheck={false}
              />
            )}
          </Field>
          <Field id="secret-value" label="Value" error={errors.value}>
            {(a11y) => (
              <input
                {...a11y}
                ref={valueRef}
                type="password"
                value={value}
                onChange={(e) => setValue(e.target.value)}
                autoComplete="new-password"
                spellCheck={false}
              />
            )}
          </Field>
        </div>
        <FormMessages error={errors.form} done={done} />
        <div className="buttons">
          <button type="submit" disabled={put.isPending}>
            Save secret
          </button>
        </div>
      </form>
    </ListCard>
  );
}

function DeleteSecret({ secretKey, path, onDeleted }: { secretKey: string; path: string; onDeleted: () => Promise<unknown> }) {
  const remove = useMutation({ mutationFn: () => api(path, { method: "DELETE" }), onSuccess: onDeleted });
  return (
    <>
      <button type="button" className="secondary" onClick={() => remove.mutate()} disabled={remove.isPending} aria-label={`Delete ${secretKey}`}>
        Delete
      </button>
      <Alert inline error={remove.error} />
    </>
  );
}
