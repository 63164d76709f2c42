import { type GitSourceInput, type SourceView, gitSourceInput } from "@levelrail/spec/git";
import type { FieldErrors } from "./form";
import { fieldErrors } from "./zod-errors";

/** The git source form's text fields (empty target, polling or credential: none). */
export interface SourceFormValues {
  url: string;
  ref: string;
  path: string;
  dockerfile: string;
  credentialId: string;
  buildArgs: string;
  target: string;
  pollIntervalSeconds: string;
  /** The provider API previews use; empty: none. */
  apiProvider: string;
  apiUrl: string;
  apiCredentialId: string;
}

/** The form filled from a service's source: its git source's fields, or the defaults for a service on an image. */
export function sourceFormValues(source: SourceView): SourceFormValues {
  const g = "git" in source ? source.git : null;
  return {
    url: g?.url ?? "",
    ref: g?.ref ?? "main",
    path: g?.path ?? ".",
    dockerfile: g?.dockerfile ?? "Dockerfile",
    credentialId: g?.credentialId ?? "",
    buildArgs: g?.buildArgs.join(" ") ?? "",
    target: g?.target ?? "",
    pollIntervalSeconds: g?.pollIntervalSeconds === null || g?.pollIntervalSeconds === undefined ? "" : String(g.pollIntervalSeconds),
    apiProvider: g?.apiProvider ?? "",
    apiUrl: g?.apiUrl ?? "",
    apiCredentialId: g?.apiCredentialId ?? "",
  };
}

/** The API's `source.git` from the form, checked with the API's own schema; errors keyed by the form's fields. */
export function sourceFormInput(v: SourceFormValues): { input: GitSourceInput } | { errors: FieldErrors } {
  const poll = v.pollIntervalSeconds.trim();
  const raw = {
    url: v.url.trim(),
    ref: v.ref.trim(),
    path: v.path.trim(),
    dockerfile: v.dockerfile.trim(),
    credentialId: v.credentialId === "" ? null : v.credentialId,
    buildArgs: v.buildArgs.split(/[\s,]+/).filter((k) => k !== ""),
    target: v.target.trim() === "" ? null : v.target.trim(),
    // Not a number: passed as typed, so the schema says what is wrong with it.
    pollIntervalSeconds: poll === "" ? null : /^\d+$/.test(poll) ? Number(poll) : poll,
    apiProvider: v.apiProvider === "" ? null : v.apiProvider,
    apiUrl: v.apiUrl.trim() === "" ? null : v.apiUrl.trim(),
    apiCredentialId: v.apiCredentialId === "" ? null : v.apiCredentialId,
  };
  const parsed = gitSourceInput.safeParse(raw);
  return parsed.success ? { input: parsed.data } : { errors: fieldErrors(parsed.error) };
}

/** The form field an API error about the source names (`source.git.url` → `url`), else the form. */
export function sourceErrorField(field: string | undefined): string {
  if (!field?.startsWith("source.git.")) return "form";
  return field.slice("source.git.".length).split(".")[0] ?? "form";
}
