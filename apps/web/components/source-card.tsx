"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { GitCredentialView, GitSourceView } from "@levelrail/spec/git";
import { GIT_PROVIDERS } from "@levelrail/spec/lists";
import type { ServiceView } from "@levelrail/spec/service";
import type { WebhookSecretView } from "@levelrail/services/service/source";
import { ApiError, api } from "@/lib/fetcher";
import type { FieldErrors } from "@/lib/form";
import { bareMessage } from "@/lib/form";
import { keys } from "@/lib/keys";
import { type Scoped, serviceApi } from "@/lib/paths";
import { useGitCredentials } from "@/lib/settings-queries";
import { useEnvironment } from "@/lib/queries";
import { useService } from "@/lib/service-queries";
import { type SourceFormValues, sourceErrorField, sourceFormInput, sourceFormValues } from "@/lib/source-form";
import { Alert } from "./alert";
import { Copyable } from "./copyable";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { RoleNote } from "./role-note";

/**
 * Where the service's image comes from (docs/operating/services-and-deploys.md, docs/operating/git-builds-and-previews.md#git-sources-and-credentials): an image, or a git source with its
 * webhook URL, the repository's last error (written by the builds), and its form. A new webhook
 * secret (a switch to git, a rotation) is shown once, here, with a copy button.
 */
export function SourceCard({ service: ref, publicUrl, denied = null }: { service: Scoped; publicUrl: string; denied?: string | null }) {
  const service = useService(ref);
  const orgId = useEnvironment(ref.environmentId).data?.orgId;
  const credentials = useGitCredentials(orgId);
  const [secret, setSecret] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const s = service.data;
  const git = s && "git" in s.source ? s.source.git : null;
  return (
    <section className="card stack" aria-labelledby="source-title">
      <h2 id="source-title">Source</h2>
      <Alert error={service.error} />
      {s && !git && (
        <dl className="facts">
          <dt>Image</dt>
          <dd className="mono">{s.image}</dd>
        </dl>
      )}
      {git && <GitFacts git={git} image={s?.image ?? ""} credentials={credentials.data} publicUrl={publicUrl} />}
      {git?.lastError && <Alert>The repository could not be reached: {git.lastError}</Alert>}
      {secret && (
        <div className="warning stack" role="status">
          <p>The webhook secret, shown once: put it in the provider&apos;s webhook settings now.</p>
          <Copyable label="Secret" text={secret} copyLabel="Copy the webhook secret" />
        </div>
      )}
      {s && git && <RotateSecret service={s} denied={denied} onRotated={setSecret} />}
      {s && !editing && (
        <div className="buttons">
          <button type="button" className="secondary" disabled={denied !== null} aria-describedby={denied ? "source-denied" : undefined} onClick={() => setEditing(true)}>
            {git ? "Edit git source" : "Build from git"}
          </button>
        </div>
      )}
      {s && editing && (
        <GitSourceForm
          service={s}
          credentials={credentials.data ?? []}
          onDone={(made) => {
            setEditing(false);
            if (made) setSecret(made);
          }}
        />
      )}
      {s && git && <SwitchToImage service={s} denied={denied} onSwitched={() => setSecret(null)} />}
      <RoleNote id="source-denied" denied={denied} />
    </section>
  );
}

function GitFacts({ git, image, credentials, publicUrl }: { git: GitSourceView; image: string; credentials: GitCredentialView[] | undefined; publicUrl: string }) {
  const nameOf = (id: string) => credentials?.find((c) => c.id === id)?.name ?? id;
  const credential = git.credentialId === null ? "none (a public repository)" : nameOf(git.credentialId);
  const api = git.apiProvider === null ? "none" : `${git.apiProvider} at ${git.apiUrl ?? ""}${git.apiCredentialId ? ` (token ${nameOf(git.apiCredentialId)})` : ""}`;
  return (
    <>
      <dl className="facts">
        <dt>Repository</dt>
        <dd className="mono">{git.url}</dd>
        <dt>Ref</dt>
        <dd className="mono">{git.ref}</dd>
        <dt>Context</dt>
        <dd className="mono">{git.path}</dd>
        <dt>Dockerfile</dt>
        <dd className="mono">{git.dockerfile}</dd>
        <dt>Credential</dt>
        <dd>{credential}</dd>
        <dt>Build args</dt>
        <dd className="mono">{git.buildArgs.length ? git.buildArgs.join(", ") : "none"}</dd>
        <dt>Target stage</dt>
        <dd className="mono">{git.target ?? "the last one"}</dd>
        <dt>Polling</dt>
        <dd>{git.pollIntervalSeconds === null ? "off (webhooks only)" : `every ${git.pollIntervalSeconds} s`}</dd>
        <dt>Provider API</dt>
        <dd className="mono">{api}</dd>
        <dt>Last commit seen</dt>
        <dd className="mono">{git.lastSeenCommit?.slice(0, 12) ?? "none yet"}</dd>
        <dt>Image</dt>
        <dd className="mono">{image || "not built yet"}</dd>
      </dl>
      <p>
        <Copyable label="Webhook URL" text={`${publicUrl.replace(/\/$/, "")}${git.webhookPath}`} copyLabel="Copy the webhook URL" />
      </p>
    </>
  );
}

function RotateSecret({ service, denied, onRotated }: { service: ServiceView; denied: string | null; onRotated: (secret: string) => void }) {
  const rotate = useMutation({
    mutationFn: () => api<WebhookSecretView>(serviceApi(service, "/source/webhook-secret"), { method: "POST" }),
    onSuccess: (r) => onRotated(r.webhookSecret),
  });
  return (
    <div className="buttons">
      <button type="button" className="secondary" disabled={rotate.isPending || denied !== null} onClick={() => rotate.mutate()}>
        New webhook secret
      </button>
      <Alert inline error={rotate.error} />
    </div>
  );
}

const FIELDS: { name: keyof SourceFormValues; label: string; placeholder?: string; hint?: string }[] = [
  { name: "url", label: "Repository URL", placeholder: "https://git.example.com/team/shop.git or git@host:team/shop.git" },
  { name: "ref", label: "Branch or tag", placeholder: "main" },
  { name: "path", label: "Build context", placeholder: "." },
  { name: "dockerfile", label: "Dockerfile", placeholder: "Dockerfile" },
  { name: "buildArgs", label: "Build args", hint: "env keys, space-separated: their values come from the environment" },
  { name: "target", label: "Target stage", hint: "empty: the last stage" },
  { name: "pollIntervalSeconds", label: "Poll every (seconds)", hint: "empty: webhooks only; 60 to 86400" },
  { name: "apiUrl", label: "Provider API URL", placeholder: "https://api.github.com", hint: "for previews: open requests and commit statuses" },
];

function GitSourceForm({ service, credentials, onDone }: { service: ServiceView; credentials: GitCredentialView[]; onDone: (secret: string | null) => void }) {
  const qc = useQueryClient();
  const [values, setValues] = useState<SourceFormValues>(() => sourceFormValues(service.source));
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useMutation({
    mutationFn: (input: unknown) => api<ServiceView>(serviceApi(service), { method: "PATCH", body: input }),
    onSuccess: async (v) => {
      onDone("git" in v.source ? (v.source.git.webhookSecret ?? null) : null);
      await qc.invalidateQueries({ queryKey: keys.service(service) });
    },
    onError: (err) => setErrors(err instanceof ApiError ? { [sourceErrorField(err.field)]: bareMessage(err.message, err.field) } : { form: "could not save the source" }),
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    const r = sourceFormInput(values);
    if ("errors" in r) return setErrors(r.errors);
    setErrors({});
    save.mutate({ source: { git: r.input } });
  }
  const set = (name: keyof SourceFormValues, value: string) => setValues((v) => ({ ...v, [name]: value }));
  return (
    <form className="stack" onSubmit={submit} aria-label="Git source" noValidate>
      <div className="row">
        {FIELDS.map((f) => (
          <Field key={f.name} id={`source-${f.name}`} label={f.label} error={errors[f.name]} {...(f.hint ? { hint: f.hint } : {})}>
            {(a11y) => <input {...a11y} value={values[f.name]} onChange={(e) => set(f.name, e.target.value)} placeholder={f.placeholder} autoComplete="off" spellCheck={false} />}
          </Field>
        ))}
        <Field id="source-credentialId" label="Credential" error={errors.credentialId}>
          {(a11y) => (
            <select {...a11y} value={values.credentialId} onChange={(e) => set("credentialId", e.target.value)}>
              <option value="">none (a public repository)</option>
              {credentials.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name} ({c.kind === "ssh" ? "deploy key" : "token"}
                  {c.hosts.length ? `, only to ${c.hosts.join(", ")}` : ""})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="source-apiProvider" label="Provider API" error={errors.apiProvider}>
          {(a11y) => (
            <select {...a11y} value={values.apiProvider} onChange={(e) => set("apiProvider", e.target.value)}>
              <option value="">none</option>
              {GIT_PROVIDERS.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="source-apiCredentialId" label="Provider API token" error={errors.apiCredentialId}>
          {(a11y) => (
            <select {...a11y} value={values.apiCredentialId} onChange={(e) => set("apiCredentialId", e.target.value)}>
              <option value="">none</option>
              {credentials
                .filter((c) => c.kind === "token")
                .map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name} (only to {c.hosts.join(", ") || "no host"})
                  </option>
                ))}
            </select>
          )}
        </Field>
      </div>
      <FormMessages error={errors.form} />
      <div className="buttons">
        <button type="submit" disabled={save.isPending}>
          Save source and build
        </button>
        <button type="button" className="secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function SwitchToImage({ service, denied, onSwitched }: { service: ServiceView; denied: string | null; onSwitched: () => void }) {
  const qc = useQueryClient();
  const [image, setImage] = useState("");
  const [error, setError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: (input: unknown) => api<ServiceView>(serviceApi(service), { method: "PATCH", body: input }),
    onSuccess: async () => {
      setImage("");
      onSwitched();
      await qc.invalidateQueries({ queryKey: keys.service(service) });
    },
    onError: (err) => setError(err instanceof ApiError ? bareMessage(err.message, err.field) : "could not switch"),
  });
  async function submit(e: FormEvent) {
    e.preventDefault();
    const { imageRef } = await import("@levelrail/spec/service");
    const parsed = imageRef.safeParse(image.trim());
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? "must be an image reference");
    setError(undefined);
    save.mutate({ source: { image: parsed.data } });
  }
  return (
    <form className="stack" onSubmit={submit} aria-label="Switch to an image" noValidate>
      <div className="row">
        <Field id="source-image" label="Run an image instead" error={error} hint="deletes the git source and its webhook">
          {(a11y) => <input {...a11y} value={image} onChange={(e) => setImage(e.target.value)} placeholder="registry.example.com/shop:1.4.2" autoComplete="off" spellCheck={false} />}
        </Field>
      </div>
      <div className="buttons">
        <button type="submit" className="secondary" disabled={save.isPending || denied !== null}>
          Switch to image
        </button>
      </div>
    </form>
  );
}
