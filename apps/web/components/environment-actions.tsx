"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, Suspense, lazy, useState } from "react";
import { checkedName } from "@/lib/checked-name";
import { ApiError, api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { environmentHref } from "@/lib/paths";
import { withQuery } from "@/lib/queries";
import type { EnvironmentItem } from "@/lib/types";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { RoleNote } from "./role-note";

/** The delete's confirmation, in its own chunk: it opens from the "Delete environment" button. */
const DeleteEnvironmentConfirm = lazy(() => import("./delete-environment-confirm").then((m) => ({ default: m.DeleteEnvironmentConfirm })));

/**
 * "Clone environment": a new environment of the same project with this one's apps, services, env
 * vars and secrets (no domains); with "deploy everything", every cloned service deploys at once.
 * `children`: the card's heading (id `clone-title`) and text, rendered on the server
 * (CloneEnvironmentCard, environment-cards.tsx).
 */
export function CloneEnvironmentForm({ environment, denied = null, children }: { environment: EnvironmentItem; denied?: string | null; children: ReactNode }) {
  const router = useRouter();
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const [deploy, setDeploy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const clone = useMutation({
    mutationFn: (input: { name: string; deploy: boolean }) =>
      api<EnvironmentItem>(withQuery(`/projects/${encodeURIComponent(environment.projectId)}/environments`, { deploy: input.deploy ? "true" : null }), {
        method: "POST",
        body: { name: input.name, from: environment.id },
      }),
    onSuccess: async (created) => {
      await qc.invalidateQueries({ queryKey: keys.environments(environment.projectId) });
      router.push(environmentHref(created.id));
    },
    onError: (err) => setError(err instanceof ApiError ? err.message : "could not clone the environment; try again"),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = checkedName(name, setError);
    if (parsed !== null) clone.mutate({ name: parsed, deploy });
  }

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="clone-title" noValidate>
      {children}
      <Field id="clone-name" label="New environment name" error={error}>
        {(a11y) => <input {...a11y} value={name} onChange={(e) => setName(e.target.value)} placeholder="staging" autoComplete="off" />}
      </Field>
      <label className="check">
        <input type="checkbox" checked={deploy} onChange={(e) => setDeploy(e.target.checked)} /> Deploy every service once cloned
      </label>
      <RoleNote id="clone-denied" denied={denied} />
      <button type="submit" disabled={clone.isPending || denied !== null} aria-describedby={denied ? "clone-denied" : undefined}>
        Clone environment
      </button>
    </form>
  );
}

/**
 * "Delete environment", then a confirmation that names everything it removes; its databases' data
 * volumes are kept unless "also delete the databases' data" is ticked (`?dropData=true`).
 */
export function DeleteEnvironment({ environment, denied = null }: { environment: EnvironmentItem; denied?: string | null }) {
  const router = useRouter();
  const qc = useQueryClient();
  const [armed, setArmed] = useState(false);
  const [dropData, setDropData] = useState(false);
  const remove = useMutation({
    mutationFn: () => api(withQuery(`/environments/${encodeURIComponent(environment.id)}`, { dropData: dropData ? "true" : null }), { method: "DELETE" }),
    onSuccess: async () => {
      await Promise.all([qc.invalidateQueries({ queryKey: keys.projects() }), qc.invalidateQueries({ queryKey: keys.currentEnvironment() })]);
      router.push("/");
      router.refresh();
    },
  });
  return (
    <section className="card stack" aria-labelledby="delete-env-title">
      <h2 id="delete-env-title">Delete environment</h2>
      {!armed ? (
        <div className="buttons">
          <button type="button" className="secondary" disabled={denied !== null} aria-describedby={denied ? "delete-env-denied" : undefined} onClick={() => setArmed(true)}>
            Delete environment
          </button>
          <RoleNote id="delete-env-denied" denied={denied} />
        </div>
      ) : (
        <Suspense fallback={null}>
          <DeleteEnvironmentConfirm
            environment={environment}
            dropData={dropData}
            onDropData={setDropData}
            pending={remove.isPending}
            onDelete={() => remove.mutate()}
            onCancel={() => setArmed(false)}
          />
        </Suspense>
      )}
      <FormMessages error={remove.isError ? remove.error.message : undefined} />
    </section>
  );
}
