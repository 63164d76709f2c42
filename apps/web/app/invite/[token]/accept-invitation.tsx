"use client";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { Alert } from "@/components/alert";
import { authClient } from "@/lib/auth-client";

/** POST /api/v1/invitations/accept; the error's message, or null when it worked. */
async function accept(body: { token: string; password?: string }): Promise<string | null> {
  const res = await fetch("/api/v1/invitations/accept", {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).catch(() => null);
  if (!res) return "the panel could not be reached; try again";
  if (res.ok) return null;
  const answer = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  return answer?.error?.message ?? `accepting failed (${res.status})`;
}

/**
 * The one step that accepts an invitation: `sign-up` creates the invited address's account (and
 * signs in), `sign-in` signs in first, `accept` is for the invited address already signed in.
 */
export function AcceptInvitation({ token, email, orgName, mode }: { token: string; email: string; orgName: string; mode: "sign-up" | "sign-in" | "accept" }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const password = String(data.get("password") ?? "");
    setBusy(true);
    setError(null);
    const failure = await run(password, String(data.get("confirm") ?? ""));
    setBusy(false);
    if (failure) {
      setError(failure);
      return;
    }
    router.replace("/");
    router.refresh();
  }

  async function run(password: string, confirm: string): Promise<string | null> {
    if (mode === "sign-up") {
      if (password !== confirm) return "the two passwords differ";
      const refused = await accept({ token, password });
      if (refused) return refused;
      const { error: signIn } = await authClient.signIn.email({ email, password });
      return signIn ? `your account was created and you joined ${orgName}, but signing in failed: ${signIn.message ?? "try the sign-in page"}` : null;
    }
    if (mode === "sign-in") {
      const { error: signIn } = await authClient.signIn.email({ email, password });
      if (signIn) return signIn.message ?? "sign-in failed";
    }
    return accept({ token });
  }

  return (
    <form className="card stack" onSubmit={submit}>
      {mode !== "accept" && (
        <label className="field">
          <span>Email</span>
          <input name="email" type="email" autoComplete="username" value={email} readOnly />
        </label>
      )}
      {mode !== "accept" && (
        <label className="field">
          <span>{mode === "sign-up" ? "Choose a password" : "Password"}</span>
          <input name="password" type="password" autoComplete={mode === "sign-up" ? "new-password" : "current-password"} minLength={8} required />
        </label>
      )}
      {mode === "sign-up" && (
        <label className="field">
          <span>Repeat the password</span>
          <input name="confirm" type="password" autoComplete="new-password" minLength={8} required />
        </label>
      )}
      <Alert>{error}</Alert>
      <button type="submit" disabled={busy}>
        {mode === "sign-up" ? "Create account and join" : mode === "sign-in" ? "Sign in and join" : `Join ${orgName}`}
      </button>
    </form>
  );
}
