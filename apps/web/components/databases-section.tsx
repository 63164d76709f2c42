"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "@/components/link";
import { type FormEvent, Suspense, lazy, useState } from "react";
import { scheduleText } from "@/lib/schedule-text";
import { api } from "@/lib/fetcher";
import type { FieldErrors } from "@/lib/form";
import { keys } from "@/lib/keys";
import { databaseHref, envApi } from "@/lib/paths";
import { useEnvironmentBackupTargets, useDatabases } from "@/lib/database-queries";
import type { NewDatabaseValues } from "@/lib/new-database-input";
import { DEFAULT_SCHEDULE, type ScheduleValues } from "@/lib/schedule-values";
import type { DatabaseView } from "@/lib/types";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { ListTable } from "./list-card";
import { PhaseBadge } from "./phase-badge";

/**
 * The schedule's controls, in their own chunk: the form shows them once "Back up on a schedule" is
 * ticked. React.lazy, not next/dynamic: the server never renders them, and next/dynamic's own
 * runtime would cost this page more than the chunk saves.
 */
const ScheduleFields = lazy(() => import("./schedule-fields").then((m) => ({ default: m.ScheduleFields })));

/**
 * An environment's managed databases (phase, message, schedule) and the form that adds one.
 * `defaultVersion`: DEFAULT_POSTGRES_VERSION, passed by the server page so the lists module of
 * @levelrail/spec stays out of this page's JavaScript.
 */
export function DatabasesSection({ envId, defaultVersion }: { envId: string; defaultVersion: string }) {
  const databases = useDatabases(envId);
  const targets = useEnvironmentBackupTargets(envId);
  const targetName = (id: string | undefined) => targets?.find((t) => t.id === id)?.name;
  return (
    <section className="stack" aria-labelledby="databases-title">
      <h2 id="databases-title">Databases</h2>
      <div className={databases.data?.length ? "card" : undefined}>
        <ListTable
          labelledBy="databases-title"
          source={databases}
          loading="Loading databases…"
          empty="No databases yet. Create one below, then attach it to a service from the service's page."
          headers={["Name", "Engine", "Phase", "Backups"]}
          rowKey={(d) => d.id}
          row={(d) => (
            <tr>
              <td>
                <Link href={databaseHref(d)}>{d.name}</Link>
              </td>
              <td>
                PostgreSQL {d.version}
                <div className="muted mono">{d.image}</div>
              </td>
              <td>
                <PhaseBadge phase={d.phase} testId={`database-phase-${d.name}`} />
                {d.message && <div className="muted message">{d.message}</div>}
              </td>
              <td className="muted">{scheduleText(d.backupSchedule, targetName(d.backupSchedule?.targetId), d.nextBackupAt)}</td>
            </tr>
          )}
        />
      </div>
      <NewDatabaseForm envId={envId} defaultVersion={defaultVersion} />
    </section>
  );
}

type Values = NewDatabaseValues;

/** Creates a PostgreSQL database in environment `envId`, optionally with a backup schedule. */
function NewDatabaseForm({ envId, defaultVersion }: { envId: string; defaultVersion: string }) {
  const EMPTY: Values = { name: "", version: defaultVersion, image: "", placement: "" };
  const qc = useQueryClient();
  const targets = useEnvironmentBackupTargets(envId);
  const [values, setValues] = useState<Values>(EMPTY);
  const [scheduled, setScheduled] = useState(false);
  const [schedule, setSchedule] = useState<ScheduleValues>(DEFAULT_SCHEDULE);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<DatabaseView | null>(null);
  const create = useMutation({
    mutationFn: (input: unknown) => api<DatabaseView>(envApi(envId, "/databases"), { method: "POST", body: input }),
    onSuccess: async (d) => {
      setValues(EMPTY);
      setScheduled(false);
      setSchedule(DEFAULT_SCHEDULE);
      setCreated(d);
      await qc.invalidateQueries({ queryKey: keys.databases(envId) });
    },
  });
  const set = (key: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setCreated(null);
    // The API's schemas and the form's checks, loaded when it is sent: they stay out of the page's first load.
    const [spec, check] = await Promise.all([import("@levelrail/spec/database"), import("@/lib/new-database-input")]);
    const result = check.toInput(values, scheduled, schedule, spec);
    if ("errors" in result) return setErrors(result.errors);
    setErrors({});
    create.mutate(result.input, { onError: (err) => setErrors(check.apiErrors(err)) });
  }

  return (
    <form className="card stack narrow-row" onSubmit={submit} aria-labelledby="new-database-title" noValidate>
      <h2 id="new-database-title">New database</h2>
      <div className="row">
        <Field id="database-name" label="Database name" error={errors.name} hint="Services reach it at this host name.">
          {(a) => <input {...a} value={values.name} onChange={set("name")} placeholder="shop-db" autoComplete="off" />}
        </Field>
        <Field id="database-version" label="PostgreSQL version" error={errors.version}>
          {(a) => <input {...a} value={values.version} onChange={set("version")} inputMode="numeric" />}
        </Field>
      </div>
      <Field id="database-image" label="Image (optional)" error={errors.image} hint="An image that follows the official postgres image's conventions.">
        {(a) => <input {...a} value={values.image} onChange={set("image")} placeholder={`postgres:${values.version.trim() || defaultVersion}`} autoComplete="off" />}
      </Field>
      <Field
        id="database-placement"
        label="Node placement (optional, a swarm only)"
        error={errors.placement}
        hint="One node label per line, like disk=ssd: its server and its data volume stay on such a node. Fixed once made."
      >
        {(a) => <textarea {...a} className="mono" rows={2} value={values.placement} onChange={set("placement")} placeholder="disk=ssd" spellCheck={false} />}
      </Field>
      <label className="check">
        <input type="checkbox" checked={scheduled} onChange={(e) => setScheduled(e.target.checked)} /> Back up on a schedule
      </label>
      {scheduled && (
        <Suspense fallback={null}>
          <ScheduleFields
            idPrefix="new-database"
            values={schedule}
            errors={errors}
            targets={targets}
            onChange={(key, value) => setSchedule((s) => ({ ...s, [key]: value }))}
          />
        </Suspense>
      )}
      <FormMessages error={errors.form} />
      {created && (
        <p className="success" role="status">
          Created <Link href={databaseHref(created)}>{created.name}</Link>. It starts in a moment.
        </p>
      )}
      <div className="buttons">
        <button type="submit" disabled={create.isPending}>
          Create database
        </button>
      </div>
    </form>
  );
}
