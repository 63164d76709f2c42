"use client";
import { type FormEvent, useState } from "react";
import type { ServiceView } from "@levelrail/spec/service";
import { MAX_PLACEMENT_LABELS, MAX_REPLICAS } from "@levelrail/spec/service-lists";
import type { FieldErrors } from "@/lib/form";
import { type ScaleValues, scaleApiError, scaleErrors, scaleInput, scaleValues } from "@/lib/scale-form";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { useServicePatch } from "./use-service-patch";

/** The engine kind as the page learnt it: null when the engine did not answer (no note then; the API still decides). */
export type EngineKind = "single" | "swarm" | null;

/**
 * The service's replicas and placement (docs/operating/services-and-deploys.md#replicas-and-placement), saved with one PATCH {replicas, placement}.
 * On one engine the inputs stay, with the note that only a swarm runs more than one replica or
 * places on node labels: the API is the authority and answers 409 naming the field, shown under it.
 * Its parent keys it by the saved values, so it restarts from them after a save.
 */
export function ScaleForm({ service, engine, onSaved, onEdit }: { service: ServiceView; engine: EngineKind; onSaved: () => void; onEdit: () => void }) {
  const [values, setValues] = useState<ScaleValues>(() => scaleValues(service));
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useServicePatch(service, { onSaved, place: scaleApiError, setErrors });
  const single = engine === "single";

  function change(key: keyof ScaleValues, value: string) {
    setValues((v) => ({ ...v, [key]: value }));
    onEdit();
    setErrors((er) => ({ ...er, [key]: undefined, form: undefined }));
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const typed = scaleInput(values);
    if ("error" in typed) {
      setErrors({ placement: typed.error });
      return;
    }
    // The API's own schema, loaded on submit: zod stays out of the page's first load.
    const { servicePatch } = await import("@levelrail/spec/service");
    const parsed = servicePatch.safeParse(typed.input);
    if (!parsed.success) {
      // `placement.zone` lands on Placement as "zone: …"; nothing else is in this patch.
      setErrors(scaleErrors(parsed.error.issues));
      return;
    }
    setErrors({});
    save.mutate(parsed.data);
  }

  return (
    <form className="stack" onSubmit={submit} aria-labelledby="scale-title" noValidate>
      <h3 id="scale-title">Replicas and placement</h3>
      {single && (
        <p className="muted" data-testid="scale-engine-note">
          This installation runs on one Docker engine: each release is one container, so replicas stay at 1 and there are no nodes to
          place on. Both need a Docker Swarm (see Nodes).
        </p>
      )}
      <div className="row">
        <Field id="scale-replicas" label="Replicas" error={errors.replicas} hint={single ? "1 on one engine; more needs a swarm." : `Tasks of each release on the swarm, 1–${MAX_REPLICAS}.`}>
          {(a) => <input {...a} value={values.replicas} onChange={(e) => change("replicas", e.target.value)} inputMode="numeric" placeholder="1" />}
        </Field>
        <Field
          id="scale-placement"
          label="Placement (node labels)"
          error={errors.placement}
          hint={single ? "Needs a swarm: one engine has no other node to place on." : `One key=value a line (at most ${MAX_PLACEMENT_LABELS}): the node labels every task requires. Empty: any node.`}
        >
          {(a) => <textarea {...a} className="mono" rows={3} value={values.placement} onChange={(e) => change("placement", e.target.value)} placeholder="zone=eu-1" spellCheck={false} />}
        </Field>
      </div>
      <FormMessages error={errors.form} />
      <div className="buttons">
        <button type="submit" disabled={save.isPending}>
          Save replicas and placement
        </button>
        <span className="muted">They take effect from the next deploy.</span>
      </div>
    </form>
  );
}
