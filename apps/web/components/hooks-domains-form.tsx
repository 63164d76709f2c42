"use client";
import { type FormEvent, useState } from "react";
import type { ServiceView } from "@levelrail/spec/service";
import type { FieldErrors } from "@/lib/form";
import { issueErrors } from "@/lib/zod-errors";
import { type HookDomainValues, hookDomainApiError, hookDomainErrors, hookDomainInput, hookDomainValues } from "@/lib/hooks-form";
import { HOOK_HINTS } from "@/lib/service-hints";
import { HookDomainFields } from "./hook-domain-fields";
import { FormMessages } from "./form-messages";
import { useServicePatch } from "./use-service-patch";

/**
 * The service's hooks and domains, checked with the API's own patch schema
 * and saved with one PATCH {hooks, domains}. The form restarts from the saved
 * values whenever they change (its parent keys it by them).
 */
export function HooksDomainsForm({ service, onSaved, onEdit }: { service: ServiceView; onSaved: () => void; onEdit: () => void }) {
  const [values, setValues] = useState<HookDomainValues>(() => hookDomainValues(service.hooks, service.domains));
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useServicePatch(service, { onSaved, place: hookDomainApiError, setErrors });

  async function submit(e: FormEvent) {
    e.preventDefault();
    const { input, unreadable } = hookDomainInput(values);
    // The API's own schema, loaded on submit: zod stays out of the page's first load.
    const { servicePatch } = await import("@levelrail/spec/service");
    const parsed = servicePatch.safeParse(input);
    if (!parsed.success || Object.keys(unreadable).length > 0) {
      const { errors: byField, rest } = parsed.success ? { errors: {}, rest: [] } : hookDomainErrors(parsed.error, input.domains);
      const other = Object.values(issueErrors(rest))[0];
      setErrors({ ...byField, ...unreadable, ...(other ? { form: other } : {}) });
      return;
    }
    setErrors({});
    save.mutate(parsed.data);
  }

  return (
    <form className="stack" onSubmit={submit} aria-labelledby="hooks-domains-title" noValidate>
      <h3 id="hooks-domains-title">Hooks and routing</h3>
      <HookDomainFields
        idPrefix="edit"
        hints={HOOK_HINTS}
        values={values}
        errors={errors}
        onChange={(key, value) => {
          setValues((v) => ({ ...v, [key]: value }));
          onEdit();
          setErrors((er) => ({ ...er, [key]: undefined, form: undefined }));
        }}
      />
      <FormMessages error={errors.form} />
      <div className="buttons">
        <button type="submit" disabled={save.isPending}>
          Save hooks and routing
        </button>
        <span className="muted">Hooks take effect from the next deploy.</span>
      </div>
    </form>
  );
}
