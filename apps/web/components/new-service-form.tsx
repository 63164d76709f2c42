"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, Suspense, lazy, useState } from "react";
import type { ServiceCreate, ServiceView } from "@levelrail/spec/service";
import type { Strategy } from "@levelrail/spec/service-lists";
import { api } from "@/lib/fetcher";
import type { FieldErrors } from "@/lib/form";
import { EMPTY_HOOK_DOMAINS } from "@/lib/hook-domain-values";
import { keys } from "@/lib/keys";
import type { NewServiceValues } from "@/lib/new-service-input";
import type { NewServiceHints } from "@/lib/service-hints";
import { useApps } from "@/lib/fleet-queries";
import { Field } from "./field";
import { HookDomainFields } from "./hook-domain-fields";
import { FormMessages } from "./form-messages";
import { envApi } from "@/lib/paths";

/**
 * What a created service says (where it is; from git, its webhook and secret), in its own chunk:
 * it shows once the form has created one.
 */
const CreatedService = lazy(() => import("./created-service").then((m) => ({ default: m.CreatedService })));

const EMPTY: NewServiceValues = {
  name: "",
  app: "",
  image: "",
  gitUrl: "",
  gitRef: "main",
  port: "",
  healthPath: "/",
  strategy: "blue-green",
  readyBudgetSeconds: "60",
  env: "",
  memoryMb: "",
  cpus: "",
  ...EMPTY_HOOK_DOMAINS,
};
type Values = NewServiceValues;

/**
 * Creates a service in one of the apps of environment `envId`; `strategies` (STRATEGIES) and the
 * fields' `hints` (NEW_SERVICE_HINTS) come from the server page, so neither the lists module nor the
 * text is in the page's JavaScript.
 */
export function NewServiceForm({ envId, strategies, hints }: { envId: string; strategies: readonly Strategy[]; hints: NewServiceHints }) {
  const qc = useQueryClient();
  const apps = useApps(envId);
  const [values, setValues] = useState<Values>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<ServiceView | null>(null);
  const create = useMutation({
    mutationFn: (input: ServiceCreate) => api<ServiceView>(envApi(envId, "/services"), { method: "POST", body: input }),
    onSuccess: async (service) => {
      setValues({ ...EMPTY, app: values.app });
      setCreated(service);
      await Promise.all([qc.invalidateQueries({ queryKey: keys.services() }), qc.invalidateQueries({ queryKey: keys.apps(envId) })]);
    },
  });

  const set = (key: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setCreated(null);
    // The API's schema and the form's checks, loaded when it is sent: they stay out of the page's first load.
    const [spec, check] = await Promise.all([import("@levelrail/spec/service"), import("@/lib/new-service-input")]);
    const result = check.toInput(values, spec.serviceCreate);
    if ("errors" in result) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    create.mutate(result.input, { onError: (err) => setErrors(check.apiErrors(err, values)) });
  }

  const appNames = (apps.data ?? []).map((a) => a.name);
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-service-title" noValidate>
      <h2 id="new-service-title">New service</h2>
      <Field id="service-name" label="Name" error={errors.name}>
        {(a) => <input {...a} value={values.name} onChange={set("name")} autoComplete="off" />}
      </Field>
      <Field id="service-app" label="App" error={errors.app}>
        {(a) => (
          <select {...a} value={values.app} onChange={set("app")}>
            <option value="">Choose an app</option>
            {appNames.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="service-image" label="Image" error={errors.image}>
        {(a) => <input {...a} value={values.image} onChange={set("image")} placeholder="nginx:1.27" autoComplete="off" />}
      </Field>
      <div className="row">
        <Field id="service-git-url" label="Or build from a git repository" error={errors.gitUrl} hint={hints.gitUrl}>
          {(a) => <input {...a} value={values.gitUrl} onChange={set("gitUrl")} placeholder="https://git.example.com/team/shop.git" autoComplete="off" spellCheck={false} />}
        </Field>
        <Field id="service-git-ref" label="Branch or tag" error={errors.gitRef}>
          {(a) => <input {...a} value={values.gitRef} onChange={set("gitRef")} autoComplete="off" spellCheck={false} />}
        </Field>
      </div>
      <div className="row">
        <Field id="service-port" label="Port" error={errors.port}>
          {(a) => <input {...a} value={values.port} onChange={set("port")} inputMode="numeric" placeholder="8080" />}
        </Field>
        <Field id="service-health" label="Health path" error={errors.healthPath}>
          {(a) => <input {...a} value={values.healthPath} onChange={set("healthPath")} />}
        </Field>
      </div>
      <div className="row">
        <Field id="service-strategy" label="Strategy" error={errors.strategy}>
          {(a) => (
            <select {...a} value={values.strategy} onChange={set("strategy")}>
              {strategies.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="service-budget" label="Ready budget (seconds)" error={errors.readyBudgetSeconds}>
          {(a) => <input {...a} value={values.readyBudgetSeconds} onChange={set("readyBudgetSeconds")} inputMode="numeric" />}
        </Field>
      </div>
      <div className="row">
        <Field id="service-memory" label="Memory limit (MiB)" error={errors.memoryMb} hint={hints.memoryMb}>
          {(a) => <input {...a} value={values.memoryMb} onChange={set("memoryMb")} inputMode="numeric" placeholder="no limit" />}
        </Field>
        <Field id="service-cpus" label="CPU limit" error={errors.cpus} hint={hints.cpus}>
          {(a) => <input {...a} value={values.cpus} onChange={set("cpus")} inputMode="decimal" placeholder="no limit" />}
        </Field>
      </div>
      <Field id="service-env" label="Env vars" error={errors.env} hint={hints.env}>
        {(a) => <textarea {...a} value={values.env} onChange={set("env")} rows={4} spellCheck={false} />}
      </Field>
      <HookDomainFields idPrefix="service" hints={hints.hooks} values={values} errors={errors} onChange={(key, value) => setValues((v) => ({ ...v, [key]: value }))} />
      <FormMessages error={errors.form} />
      {created && (
        <Suspense fallback={null}>
          <CreatedService service={created} />
        </Suspense>
      )}
      <button type="submit" disabled={create.isPending}>
        Create service
      </button>
    </form>
  );
}
