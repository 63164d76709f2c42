"use client";
import type { FieldErrors } from "@/lib/form";
import type { HookDomainValues } from "@/lib/hook-domain-values";
import type { HookHints } from "@/lib/service-hints";
import { Field } from "./field";

/** Pre- and post-deploy commands, the hook timeout and the domains: the same controls on the create and edit forms. `hints`: HOOK_HINTS. */
export function HookDomainFields({
  idPrefix,
  values,
  errors,
  onChange,
  hints,
}: {
  idPrefix: string;
  values: HookDomainValues;
  errors: FieldErrors;
  onChange: (key: keyof HookDomainValues, value: string) => void;
  hints: HookHints;
}) {
  const set = (key: keyof HookDomainValues) => (e: { target: { value: string } }) => onChange(key, e.target.value);
  return (
    <>
      <div className="row">
        <Field id={`${idPrefix}-pre-deploy`} label="Pre-deploy command" error={errors.preDeploy} hint={hints.preDeploy}>
          {(a) => (
            <textarea {...a} value={values.preDeploy} onChange={set("preDeploy")} rows={3} spellCheck={false} placeholder={"npm\nrun\nmigrate"} />
          )}
        </Field>
        <Field id={`${idPrefix}-post-deploy`} label="Post-deploy command" error={errors.postDeploy} hint={hints.postDeploy}>
          {(a) => (
            <textarea {...a} value={values.postDeploy} onChange={set("postDeploy")} rows={3} spellCheck={false} placeholder={"./smoke-test\n--quick"} />
          )}
        </Field>
      </div>
      <div className="row">
        <Field id={`${idPrefix}-hook-timeout`} label="Hook timeout (seconds)" error={errors.timeoutSeconds} hint={hints.timeoutSeconds}>
          {(a) => <input {...a} value={values.timeoutSeconds} onChange={set("timeoutSeconds")} inputMode="numeric" />}
        </Field>
        <Field id={`${idPrefix}-domains`} label="Domains" error={errors.domains} hint={hints.domains}>
          {(a) => <textarea {...a} value={values.domains} onChange={set("domains")} rows={3} spellCheck={false} placeholder="shop.example.com" />}
        </Field>
      </div>
    </>
  );
}
