"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "@/components/link";
import { type FormEvent, useState } from "react";
import { envKeyProblem } from "@levelrail/spec/checks";
import type { ServiceView } from "@levelrail/spec/service";
import { ApiError, api } from "@/lib/fetcher";
import { type FieldErrors, bareMessage } from "@/lib/form";
import { DEFAULT_DATABASE_KEY, attached, detached } from "@/lib/database-form";
import { keys } from "@/lib/keys";
import { type Scoped, databaseHref, serviceApi } from "@/lib/paths";
import { useDatabases } from "@/lib/database-queries";
import { useService } from "@/lib/service-queries";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { ACTIONS, ListCard } from "./list-card";
import { PhaseBadge } from "./phase-badge";

type DatabaseEnv = ServiceView["databaseEnv"];

/**
 * The databases the service's container gets a connection URL of: list, detach, and attach one of
 * the environment's databases under an env key (`DATABASE_URL` unless another is typed). Saved
 * with a PATCH of `databaseEnv`, which the next deploy applies.
 */
export function DatabaseAttachments({ service: ref }: { service: Scoped }) {
  const qc = useQueryClient();
  const service = useService(ref);
  const databases = useDatabases(ref.environmentId);
  const [database, setDatabase] = useState("");
  const [key, setKey] = useState(DEFAULT_DATABASE_KEY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (input: { databaseEnv: DatabaseEnv; done: string }) => api<ServiceView>(serviceApi(ref), { method: "PATCH", body: { databaseEnv: input.databaseEnv } }),
    onSuccess: async (_saved, input) => {
      setDone(input.done);
      setDatabase("");
      setKey(DEFAULT_DATABASE_KEY);
      await Promise.all([qc.invalidateQueries({ queryKey: keys.service(ref) }), qc.invalidateQueries({ queryKey: keys.environmentDatabases(ref.environmentId) })]);
    },
    onError: (err) => {
      if (!(err instanceof ApiError)) return setErrors({ form: "could not save the attachment" });
      setErrors(err.field?.startsWith("databaseEnv") ? { database: bareMessage(err.message, err.field) } : { form: err.message });
    },
  });
  const s = service.data;
  if (!s) return null;
  const entries = Object.entries(s.databaseEnv).sort(([a], [b]) => a.localeCompare(b));
  const phaseOf = (name: string) => databases.data?.find((d) => d.name === name)?.phase;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!s) return;
    setDone(null);
    const problems: FieldErrors = {
      database: database === "" ? "choose a database" : undefined,
      key: key === "" ? "is required" : envKeyProblem(key),
    };
    if (problems.database || problems.key) return setErrors(problems);
    setErrors({});
    save.mutate({ databaseEnv: attached(s.databaseEnv, key, database), done: `${key} now gets ${database}'s URL; deploy to apply` });
  }

  return (
    <ListCard
      id="database-attachments"
      title="Databases"
      before={
        <p className="muted">
          An attached database&apos;s connection URL (<span className="mono">postgres://user:password@host:5432/db</span>) reaches the container
          under the key you choose; the value is never shown. Deploy to apply a change.
        </p>
      }
      source={{ data: entries, error: null }}
      empty="No database attached."
      headers={["Key", "Database", ACTIONS]}
      rowKey={([k]) => k}
      row={([k, v]) => {
        const phase = phaseOf(v.from);
        return (
          <tr>
            <td className="key-cell">{k}</td>
            <td>
              <Link href={databaseHref({ environmentId: ref.environmentId, name: v.from })}>{v.from}</Link> {phase && <PhaseBadge phase={phase} />}
            </td>
            <td>
              <button
                type="button"
                className="secondary"
                disabled={save.isPending}
                aria-label={`Detach ${k}`}
                onClick={() => save.mutate({ databaseEnv: detached(s.databaseEnv, k), done: `${k} detached; deploy to apply` })}
              >
                Detach
              </button>
            </td>
          </tr>
        );
      }}
    >
      <form className="stack" onSubmit={submit} aria-label="Attach a database" noValidate>
        <div className="row">
          <Field id="attach-database" label="Database" error={errors.database}>
            {(a) => (
              <select {...a} value={database} onChange={(e) => setDatabase(e.target.value)}>
                <option value="">Choose a database</option>
                {(databases.data ?? []).map((d) => (
                  <option key={d.id} value={d.name}>
                    {d.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="attach-database-key" label="Env key" error={errors.key}>
            {(a) => <input {...a} className="mono" value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" spellCheck={false} />}
          </Field>
        </div>
        {databases.data?.length === 0 && <p className="muted">This environment has no database yet: create one on the environment&apos;s page.</p>}
        <FormMessages error={errors.form} done={done} />
        <div className="buttons">
          <button type="submit" disabled={save.isPending}>
            Attach database
          </button>
        </div>
      </form>
    </ListCard>
  );
}
