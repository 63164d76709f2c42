"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { STRATEGIES, type ServiceCreate, type ServiceView, serviceCreate } from "@levelrail/spec/service";
import { ApiError, api } from "@/lib/fetcher";
import { type FieldErrors, issueErrors, numberOrUndefined, parseEnvLines, topField } from "@/lib/form";
import { EMPTY_HOOK_DOMAINS, HOOK_DOMAIN_FIELDS, hookDomainApiError, hookDomainErrors, hookDomainInput } from "@/lib/hooks-form";
import { keys } from "@/lib/keys";
import { limitApiError, limitErrors, limitInput } from "@/lib/limits-form";
import { useApps } from "@/lib/queries";
import { Field } from "./field";
import { HookDomainFields } from "./hook-domain-fields";
import { FormMessages } from "./form-messages";
import { envApi, serviceHref } from "@/lib/paths";

const EMPTY = {
  name: "",
  app: "",
  image: "",
  port: "",
  healthPath: "/",
  strategy: "blue-green",
  readyBudgetSeconds: "60",
  env: "",
  memoryMb: "",
  cpus: "",
  ...EMPTY_HOOK_DOMAINS,
};
type Values = typeof EMPTY;
const SHOWN = new Set<string>([...Object.keys(EMPTY), ...HOOK_DOMAIN_FIELDS]);
/** An error of a field the form has no control for (e.g. `body`) shows under the form. */
const placed = (errors: FieldErrors): FieldErrors =>
  Object.fromEntries(Object.entries(errors).map(([k, v]) => [SHOWN.has(k) ? k : "form", v]));

/** The memory and CPU limits as `resources` (the rest at their defaults), or nothing when both are empty. */
function createLimits(v: Values) {
  if (v.memoryMb.trim() === "" && v.cpus.trim() === "") return {};
  const { memoryMb, cpus } = limitInput({ memoryMb: v.memoryMb, cpus: v.cpus, pids: "", capAdd: [] }).resources;
  return { resources: { memoryMb, cpus } };
}

/** The form's values as the API takes them, checked with the API's own schema. */
function toInput(v: Values): { input: ServiceCreate } | { errors: FieldErrors } {
  const env = parseEnvLines(v.env);
  if ("error" in env) return { errors: { env: env.error } };
  const { input: hooksAndDomains, unreadable } = hookDomainInput(v);
  const parsed = serviceCreate.safeParse({
    name: v.name,
    app: v.app,
    image: v.image,
    port: numberOrUndefined(v.port),
    healthPath: v.healthPath,
    strategy: v.strategy,
    readyBudgetSeconds: numberOrUndefined(v.readyBudgetSeconds),
    env: env.env,
    ...createLimits(v),
    ...hooksAndDomains,
  });
  if (parsed.success && Object.keys(unreadable).length === 0) return { input: parsed.data };
  const { errors, rest } = parsed.success ? { errors: {}, rest: [] } : hookDomainErrors(parsed.error, hooksAndDomains.domains);
  const limits = limitErrors({ issues: rest });
  return { errors: placed({ ...issueErrors(limits.rest), ...limits.errors, ...errors, ...unreadable }) };
}

/** Creates a service in one of the apps of environment `envId`. */
export function NewServiceForm({ envId }: { envId: string }) {
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
    onError: (err) => {
      if (!(err instanceof ApiError)) return setErrors({ form: "could not create the service" });
      const placedError = hookDomainApiError(err.field, err.message) ?? limitApiError(err.field, err.message);
      setErrors(placed(placedError ? { [placedError.field]: placedError.message } : { [topField(err.field)]: err.message }));
    },
  });

  const set = (key: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  function submit(e: FormEvent) {
    e.preventDefault();
    setCreated(null);
    const result = toInput(values);
    if ("errors" in result) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    create.mutate(result.input);
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
              {STRATEGIES.map((s) => (
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
        <Field id="service-memory" label="Memory limit (MiB)" error={errors.memoryMb} hint="Empty: no limit. At least 16; swap included.">
          {(a) => <input {...a} value={values.memoryMb} onChange={set("memoryMb")} inputMode="numeric" placeholder="no limit" />}
        </Field>
        <Field id="service-cpus" label="CPU limit" error={errors.cpus} hint="CPUs, e.g. 0.5 or 2. Empty: no limit.">
          {(a) => <input {...a} value={values.cpus} onChange={set("cpus")} inputMode="decimal" placeholder="no limit" />}
        </Field>
      </div>
      <Field id="service-env" label="Env vars" error={errors.env} hint="One KEY=value per line">
        {(a) => <textarea {...a} value={values.env} onChange={set("env")} rows={4} spellCheck={false} />}
      </Field>
      <HookDomainFields idPrefix="service" values={values} errors={errors} onChange={(key, value) => setValues((v) => ({ ...v, [key]: value }))} />
      <FormMessages error={errors.form} />
      {created && (
        <p className="success" role="status">
          Created <Link href={serviceHref(created)}>{created.name}</Link>. Deploy it from its page.
        </p>
      )}
      <button type="submit" disabled={create.isPending}>
        Create service
      </button>
    </form>
  );
}
