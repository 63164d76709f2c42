"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { checkedName } from "@/lib/checked-name";
import { ApiError, api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { Field } from "./field";
import { envApi } from "@/lib/paths";

/** Creates an app in environment `envId`. */
export function NewAppForm({ envId }: { envId: string }) {
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | undefined>();
  const create = useMutation({
    mutationFn: (appName: string) => api(envApi(envId, "/apps"), { method: "POST", body: { name: appName } }),
    onSuccess: async () => {
      setName("");
      await qc.invalidateQueries({ queryKey: keys.apps(envId) });
    },
    onError: (err) => setError(err instanceof ApiError ? err.message : "could not create the app"),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = checkedName(name, setError);
    if (parsed !== null) create.mutate(parsed);
  }

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-app-title" noValidate>
      <h2 id="new-app-title">New app</h2>
      <Field id="app-name" label="App name" error={error}>
        {(a11y) => <input {...a11y} name="name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />}
      </Field>
      <button type="submit" disabled={create.isPending}>
        Create app
      </button>
    </form>
  );
}
