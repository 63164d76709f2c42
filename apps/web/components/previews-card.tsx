"use client";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, Suspense, lazy, useState } from "react";
import { ApiError, api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { usePreviews } from "@/lib/settings-queries";
import type { EnvironmentItem, ProjectItem, ProjectPreviews } from "@/lib/types";
import { Alert } from "./alert";
import { Field } from "./field";
import { FormMessages } from "./form-messages";

/** The previews' table, in its own chunk: only a project with previews shows it (most have none). */
const PreviewList = lazy(() => import("./preview-list").then((m) => ({ default: m.PreviewList })));

/**
 * A project's previews of pull and merge requests (docs/operating/git-builds-and-previews.md#previews-of-pull-requests): the settings (the environment each
 * preview is cloned from, the domain `pr-<n>.<domain>` routes under, at most how many are open and
 * their time to live) and the previews with their state and the last thing that happened to each.
 * `intro`: the card's text, rendered on the server (PreviewsIntro, settings-text.tsx).
 */
export function PreviewsCard({
  project,
  environments,
  intro,
  approveDenied = null,
}: {
  project: ProjectItem;
  environments: EnvironmentItem[];
  intro: ReactNode;
  /** Why the caller may not approve a fork's preview (the role that would), or null. */
  approveDenied?: string | null;
}) {
  const previews = usePreviews(project.id);
  return (
    <section className="card" aria-labelledby="previews-title">
      <h2 id="previews-title">Previews</h2>
      {intro}
      <Alert error={previews.error} />
      {!previews.data && !previews.isError && <p className="muted">Loading…</p>}
      {previews.data && <PreviewSettingsForm key={`${project.id}-${previews.data.settings?.updatedAt ?? ""}`} project={project} environments={environments} current={previews.data.settings} />}
      {previews.data &&
        (previews.data.previews.length === 0 ? (
          <p className="muted">No previews yet: they open when a pull or merge request webhook arrives.</p>
        ) : (
          <Suspense fallback={null}>
            <PreviewList projectId={project.id} previews={previews.data.previews} approveDenied={approveDenied} />
          </Suspense>
        ))}
    </section>
  );
}

function PreviewSettingsForm({ project, environments, current }: { project: ProjectItem; environments: EnvironmentItem[]; current: ProjectPreviews["settings"] }) {
  const qc = useQueryClient();
  const [base, setBase] = useState(current?.baseEnvironmentId ?? environments.find((e) => e.name === "production")?.id ?? environments[0]?.id ?? "");
  const [domain, setDomain] = useState(current?.domain ?? "");
  const [max, setMax] = useState(String(current?.max ?? 5));
  const [ttl, setTtl] = useState(String(current?.ttlHours ?? 168));
  const [errors, setErrors] = useState<{ field?: string; message: string } | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const fieldError = (f: string) => (errors?.field === f ? errors.message : undefined);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setDone(false);
    const input = { baseEnvironmentId: base, domain: domain.trim(), max: Number(max), ttlHours: Number(ttl) };
    // The same schema the API parses with, loaded on submit: the wrong field is named before anything is sent.
    const parsed = (await import("@/lib/preview-input")).checkPreviewSettings(input);
    if ("field" in parsed) return setErrors(parsed);
    setBusy(true);
    try {
      await api<ProjectPreviews>(`/projects/${encodeURIComponent(project.id)}/previews`, { method: "PUT", body: parsed.data });
      setErrors(null);
      setDone(true);
      await qc.invalidateQueries({ queryKey: keys.previews(project.id) });
    } catch (err) {
      setErrors(err instanceof ApiError ? { ...(err.field ? { field: err.field } : {}), message: err.message } : { message: String(err) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="stack" aria-label="Preview settings">
      <div className="row narrow-row">
        <Field id="preview-base" label="Base environment" error={fieldError("baseEnvironmentId")}>
          {(a) => (
            <select {...a} value={base} onChange={(e) => setBase(e.target.value)}>
              {environments.map((env) => (
                <option key={env.id} value={env.id}>
                  {env.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="preview-domain" label="Preview domain" error={fieldError("domain")} hint="A base domain of this installation, or under one">
          {(a) => <input {...a} value={domain} onChange={(e) => setDomain(e.target.value)} placeholder="preview.example.com" />}
        </Field>
        <Field id="preview-max" label="Most open" error={fieldError("max")}>
          {(a) => <input {...a} type="number" min={0} value={max} onChange={(e) => setMax(e.target.value)} />}
        </Field>
        <Field id="preview-ttl" label="Time to live (hours)" error={fieldError("ttlHours")}>
          {(a) => <input {...a} type="number" min={1} value={ttl} onChange={(e) => setTtl(e.target.value)} />}
        </Field>
      </div>
      <FormMessages error={errors && !errors.field ? errors.message : undefined} done={done ? "Saved." : null} />
      <div>
        <button type="submit" disabled={busy || !environments.length}>
          {current ? "Save previews" : "Set up previews"}
        </button>
      </div>
    </form>
  );
}
