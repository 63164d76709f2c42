"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { ReleaseView } from "@levelrail/spec/service";
import { ApiError, api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { DriftBanner } from "./drift-banner";
import { type Scoped, serviceApi } from "@/lib/paths";
import { Alert } from "./alert";
import { RoleNote } from "./role-note";

type Action = "deploy" | "restart" | "rollback";

/**
 * Deploy (optionally a new image), Restart and Rollback; each records a release for the worker.
 * `denied`: why the caller's role may not (the controls are disabled and say so).
 */
export function DeployControls({ service, denied = null }: { service: Scoped; denied?: string | null }) {
  const qc = useQueryClient();
  const [image, setImage] = useState("");
  const [imageError, setImageError] = useState<string | undefined>();
  const [done, setDone] = useState<string | null>(null);
  const act = useMutation({
    mutationFn: ({ action, body }: { action: Action; body?: { image: string } }) =>
      api<ReleaseView>(serviceApi(service, `/${action}`), { method: "POST", body: body ?? {} }),
    onMutate: () => setDone(null),
    onSuccess: async (release) => {
      setDone(`${release.kind} of ${release.image} queued`);
      setImage("");
      // The service prefix covers its status, history, effective env and drift.
      await qc.invalidateQueries({ queryKey: keys.service(service) });
      await qc.invalidateQueries({ queryKey: keys.services() });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.field === "image") setImageError(err.message);
    },
  });

  async function deploy(e: FormEvent) {
    e.preventDefault();
    const trimmed = image.trim();
    if (trimmed !== "") {
      // The API's own rule, loaded when used: zod stays out of the page's first load.
      const { imageRef } = await import("@levelrail/spec/service");
      const parsed = imageRef.safeParse(trimmed);
      if (!parsed.success) {
        setImageError(parsed.error.issues[0]?.message ?? "invalid image");
        return;
      }
    }
    setImageError(undefined);
    act.mutate({ action: "deploy", ...(trimmed === "" ? {} : { body: { image: trimmed } }) });
  }

  const generalError = act.isError && !(act.error instanceof ApiError && act.error.field === "image") ? act.error.message : null;
  return (
    <section className="card stack" aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <form className="stack" onSubmit={deploy} noValidate>
        <div className="field">
          <label htmlFor="deploy-image">Image</label>
          <input
            id="deploy-image"
            value={image}
            onChange={(e) => setImage(e.target.value)}
            placeholder="leave empty to deploy the current image"
            aria-invalid={imageError !== undefined}
            aria-describedby={imageError ? "deploy-image-error" : undefined}
            autoComplete="off"
          />
          {imageError && (
            <Alert inline id="deploy-image-error">
              {imageError}
            </Alert>
          )}
        </div>
        <DriftBanner service={service} />
        <div className="buttons">
          <button type="submit" disabled={act.isPending || denied !== null} aria-describedby={denied ? "deploy-denied" : undefined}>
            Deploy
          </button>
          <button type="button" className="secondary" disabled={act.isPending || denied !== null} onClick={() => act.mutate({ action: "restart" })}>
            Restart
          </button>
          <button type="button" className="secondary" disabled={act.isPending || denied !== null} onClick={() => act.mutate({ action: "rollback" })}>
            Rollback
          </button>
        </div>
        <RoleNote id="deploy-denied" denied={denied} />
      </form>
      {generalError && (
        <Alert>
          {generalError}
        </Alert>
      )}
      {done && (
        <p className="success" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
