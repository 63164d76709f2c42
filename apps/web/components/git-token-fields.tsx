"use client";
import type { FieldErrors } from "@/lib/form";
import { Field } from "./field";

/** New git credential's token and user name (GitCredentialsCard, kind "HTTPS token"); the token is write-only. */
export function TokenFields({
  token,
  username,
  errors,
  onToken,
  onUsername,
}: {
  token: string;
  username: string;
  errors: FieldErrors;
  onToken: (token: string) => void;
  onUsername: (username: string) => void;
}) {
  return (
    <>
      <Field id="git-credential-token" label="Token" error={errors.token}>
        {(a11y) => <input {...a11y} type="password" value={token} onChange={(e) => onToken(e.target.value)} autoComplete="new-password" spellCheck={false} />}
      </Field>
      <Field id="git-credential-username" label="User name" error={errors.username} hint="GitHub: x-access-token; GitLab: oauth2">
        {(a11y) => <input {...a11y} value={username} onChange={(e) => onUsername(e.target.value)} autoComplete="off" spellCheck={false} />}
      </Field>
    </>
  );
}
