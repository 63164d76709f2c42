"use client";
import { type FormEvent, useState } from "react";
import type { ServiceView } from "@levelrail/spec/service";
import { ADDABLE_CAPABILITIES, type Capability, DEFAULT_PIDS_LIMIT } from "@levelrail/spec/service-lists";
import type { FieldErrors } from "@/lib/form";
import { issueErrors } from "@/lib/zod-errors";
import { type LimitValues, SERVICE_CAPABILITIES, limitApiError, limitErrors, limitInput, limitValues } from "@/lib/limits-form";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { useServicePatch } from "./use-service-patch";
import { Alert } from "./alert";

const CAPS_HINT = `Every container drops all capabilities but ${SERVICE_CAPABILITIES.join(", ")} and runs with no-new-privileges; add back what the image needs.`;

/**
 * The service's memory, CPU and process limits and added capabilities, checked with the API's own
 * patch schema and saved with one PATCH {resources} (which replaces them all). Its parent keys it by
 * the saved values, so it restarts from them after a save.
 */
export function LimitsForm({ service, onSaved, onEdit }: { service: ServiceView; onSaved: () => void; onEdit: () => void }) {
  const [values, setValues] = useState<LimitValues>(() => limitValues(service.resources));
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useServicePatch(service, { onSaved, place: limitApiError, setErrors });

  function change<K extends keyof LimitValues>(key: K, value: LimitValues[K]) {
    setValues((v) => ({ ...v, [key]: value }));
    onEdit();
    setErrors((er) => ({ ...er, [key]: undefined, form: undefined }));
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const input = limitInput(values);
    // The API's own schema, loaded on submit: zod stays out of the page's first load.
    const { servicePatch } = await import("@levelrail/spec/service");
    const parsed = servicePatch.safeParse(input);
    if (!parsed.success) {
      const { errors: byField, rest } = limitErrors(parsed.error);
      const other = Object.values(issueErrors(rest))[0];
      setErrors({ ...byField, ...(other ? { form: other } : {}) });
      return;
    }
    setErrors({});
    save.mutate(parsed.data);
  }

  const toggle = (cap: Capability, on: boolean) =>
    change("capAdd", on ? ADDABLE_CAPABILITIES.filter((c) => c === cap || values.capAdd.includes(c)) : values.capAdd.filter((c) => c !== cap));
  const text = (key: "memoryMb" | "cpus" | "pids") => (e: { target: { value: string } }) => change(key, e.target.value);

  return (
    <form className="stack" onSubmit={submit} aria-labelledby="limits-title" noValidate>
      <h3 id="limits-title">Limits</h3>
      <div className="row">
        <Field id="limits-memory" label="Memory (MiB)" error={errors.memoryMb} hint="Empty: no limit. At least 16; swap included.">
          {(a) => <input {...a} value={values.memoryMb} onChange={text("memoryMb")} inputMode="numeric" placeholder="no limit" />}
        </Field>
        <Field id="limits-cpus" label="CPUs" error={errors.cpus} hint="e.g. 0.5 or 2. Empty: no limit.">
          {(a) => <input {...a} value={values.cpus} onChange={text("cpus")} inputMode="decimal" placeholder="no limit" />}
        </Field>
      </div>
      <div className="row">
        <Field id="limits-pids" label="Processes" error={errors.pids} hint={`Processes and threads at once. Default ${DEFAULT_PIDS_LIMIT}.`}>
          {(a) => <input {...a} value={values.pids} onChange={text("pids")} inputMode="numeric" placeholder={String(DEFAULT_PIDS_LIMIT)} />}
        </Field>
        <fieldset className="field" aria-describedby="limits-caps-hint" aria-invalid={errors.capAdd !== undefined}>
          <legend>Added capabilities</legend>
          <div className="inline">
            {ADDABLE_CAPABILITIES.filter((c) => !SERVICE_CAPABILITIES.includes(c)).map((cap) => (
              <label key={cap} className="mono">
                <input type="checkbox" checked={values.capAdd.includes(cap)} onChange={(e) => toggle(cap, e.target.checked)} /> {cap}
              </label>
            ))}
          </div>
          <small id="limits-caps-hint" className="muted">
            {CAPS_HINT}
          </small>
          {errors.capAdd && (
            <Alert inline>
              {errors.capAdd}
            </Alert>
          )}
        </fieldset>
      </div>
      <FormMessages error={errors.form} />
      <div className="buttons">
        <button type="submit" disabled={save.isPending}>
          Save limits
        </button>
        <span className="muted">Limits take effect from the next deploy.</span>
      </div>
    </form>
  );
}
