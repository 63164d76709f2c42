"use client";
import type { FieldErrors } from "@/lib/form";
import { ARGV_HINT, DOMAINS_HINT, type HookDomainValues } from "@/lib/hook-domain-values";
import { Field } from "./field";

/** Pre- and post-deploy commands, the hook timeout and the domains: the same controls on the create and edit forms. */
export function HookDomainFields({
  idPrefix,
  values,
  errors,
  onChange,
}: {
  idPrefix: string;
  values: HookDomainValues;
  errors: FieldErrors;
  onChange: (key: keyof HookDomainValues, value: string) => void;
}) {
  const set = (key: keyof HookDomainValues) => (e: { target: { value: string } }) => onChange(key, e.target.value);
  return (
    <>
      <div className="row">
        <Field id={`${idPrefix}-pre-deploy`} label="Pre-deploy command" error={errors.preDeploy} hint={ARGV_HINT}>
          {(a) => (
            <textarea {...a} value={values.preDeploy} onChange={set("preDeploy")} rows={3} spellCheck={false} placeholder={"npm\nrun\nmigrate"} />
          )}
        </Field>
        <Field id={`${idPrefix}-post-deploy`} label="Post-deploy command" error={errors.postDeploy} hint="Runs inside the new container once it is ready; same format.">
          {(a) => (
            <textarea {...a} value={values.postDeploy} onChange={set("postDeploy")} rows={3} spellCheck={false} placeholder={"./smoke-test\n--quick"} />
          )}
        </Field>
      </div>
      <div className="row">
        <Field id={`${idPrefix}-hook-timeout`} label="Hook timeout (seconds)" error={errors.timeoutSeconds} hint="Each hook is killed after this long and the deploy aborted.">
          {(a) => <input {...a} value={values.timeoutSeconds} onChange={set("timeoutSeconds")} inputMode="numeric" />}
        </Field>
        <Field id={`${idPrefix}-domains`} label="Domains" error={errors.domains} hint={DOMAINS_HINT}>
          {(a) => <textarea {...a} value={values.domains} onChange={set("domains")} rows={3} spellCheck={false} placeholder="shop.example.com" />}
        </Field>
      </div>
    </>
  );
}
