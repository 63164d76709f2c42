"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "@/components/link";
import { type FormEvent, useState } from "react";
import type { ServiceView } from "@levelrail/spec/service";
import { ApiError, api } from "@/lib/fetcher";
import { bareMessage } from "@/lib/form";
import { keys } from "@/lib/keys";
import { useBackupTargets } from "@/lib/config-queries";
import { useRegistryCredentials } from "@/lib/credential-queries";
import { useEffectiveEnv, useService, useStorageEnvKeys } from "@/lib/service-queries";
import type { EffectiveEnvEntry } from "@/lib/types";
import { Field } from "./field";
import { type Scoped, serviceApi } from "@/lib/paths";
import { Alert } from "./alert";

type AttachmentField = "storageTargetId" | "registryCredentialId";

/**
 * Storage keys the service's effective env already defines from some other
 * source (any tier, a secret): attaching storage would override them.
 */
export function storageCollisions(entries: EffectiveEnvEntry[], storageKeys: readonly string[]): string[] {
  return entries
    .filter((e) => storageKeys.includes(e.key))
    .map((e) => ({ key: e.key, from: [...e.overrides, e.source].filter((s) => s !== "storage") }))
    .filter((c) => c.from.length > 0)
    .map((c) => `${c.key} (${c.from.join(", ")})`);
}

const listOf = (items: string[]) => (items.length === 1 ? `${items[0]} is` : `${items.join(", ")} are`);

/** The service's storage target and registry credential, each chosen from the organization's. */
export function Attachments({ service: ref }: { service: Scoped }) {
  const service = useService(ref);
  const targets = useBackupTargets();
  const credentials = useRegistryCredentials();
  const effective = useEffectiveEnv(ref);
  const storageKeys = useStorageEnvKeys();
  const s = service.data;
  if (!s) return null;

  const confirmStorage = (next: string | null): string | null => {
    if (next === null || next === s.storageTargetId) return null;
    const collisions = storageCollisions(effective.data ?? [], storageKeys.data ?? []);
    if (collisions.length === 0) return null;
    return `${listOf(collisions)} already defined for this service; the storage target's values will override ${collisions.length === 1 ? "it" : "them"}. Attach anyway?`;
  };

  return (
    <section className="card stack" aria-labelledby="attachments-title">
      <h2 id="attachments-title">Attachments</h2>
      <div className="columns">
        <AttachmentSelect
          key={`storage-${s.storageTargetId ?? "none"}`}
          service={s}
          field="storageTargetId"
          label="Storage"
          hint={`Injects ${storageKeys.data?.join(", ") ?? "the S3_* variables"} from a backup target.`}
          options={targets.data ?? []}
          manage="Add backup targets in Settings."
          manageHref="/settings/backup-targets"
          saveLabel="Save storage"
          confirmLabel="Attach anyway"
          confirm={confirmStorage}
          ready={effective.isSuccess && storageKeys.isSuccess && targets.isSuccess}
        />
        <AttachmentSelect
          key={`registry-${s.registryCredentialId ?? "none"}`}
          service={s}
          field="registryCredentialId"
          label="Registry credential"
          hint="The login the worker pulls the image with."
          options={credentials.data ?? []}
          manage="Add registry credentials in Settings."
          manageHref="/settings/registry-credentials"
          saveLabel="Save registry credential"
          ready={credentials.isSuccess}
        />
      </div>
    </section>
  );
}

function AttachmentSelect({
  service,
  field,
  label,
  hint,
  options,
  manage,
  manageHref,
  saveLabel,
  confirmLabel,
  confirm,
  ready,
}: {
  service: ServiceView;
  field: AttachmentField;
  label: string;
  hint: string;
  options: { id: string; name: string }[];
  manage: string;
  /** The settings page where the options are added. */
  manageHref: string;
  saveLabel: string;
  confirmLabel?: string;
  confirm?: (next: string | null) => string | null;
  ready: boolean;
}) {
  const qc = useQueryClient();
  const current = service[field];
  const [chosen, setChosen] = useState(current ?? "");
  const [error, setError] = useState<string | undefined>();
  const [warning, setWarning] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (id: string | null) =>
      api<ServiceView>(serviceApi(service), { method: "PATCH", body: { [field]: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.service(service) }),
    onError: (err) => setError(err instanceof ApiError ? bareMessage(err.message, err.field) : "could not save"),
  });
  const next = chosen === "" ? null : chosen;

  function submit(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    const message = confirm?.(next) ?? null;
    if (message !== null) {
      setWarning(message);
      return;
    }
    save.mutate(next);
  }

  const id = `attach-${field}`;
  return (
    <form className="stack" onSubmit={submit} noValidate>
      <Field id={id} label={label} error={error} hint={hint}>
        {(a11y) => (
          <select
            {...a11y}
            value={chosen}
            onChange={(e) => {
              setChosen(e.target.value);
              setWarning(null);
              setError(undefined);
            }}
          >
            <option value="">None</option>
            {options.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {options.length === 0 && (
        <p className="muted">
          <Link href={manageHref}>{manage}</Link>
        </p>
      )}
      {warning && (
        <Alert warning>
          <p>{warning}</p>
          <div className="buttons">
            <button
              type="button"
              onClick={() => {
                setWarning(null);
                save.mutate(next);
              }}
            >
              {confirmLabel}
            </button>
            <button type="button" className="secondary" onClick={() => setWarning(null)}>
              Cancel
            </button>
          </div>
        </Alert>
      )}
      <div className="buttons">
        <button type="submit" disabled={!ready || save.isPending || warning !== null || next === current}>
          {saveLabel}
        </button>
      </div>
    </form>
  );
}
