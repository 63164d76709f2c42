"use client";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { Alert } from "@/components/alert";
import { authPost } from "@/lib/auth-routes";

/**
 * Email and password; when the operator has a second factor, a second step asks for the code of
 * their authenticator app (or one of their recovery codes): better-auth's twoFactor routes.
 */
export function LoginForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [step, setStep] = useState<"password" | "code">("password");
  const [recovery, setRecovery] = useState(false);

  function done() {
    router.replace("/");
    router.refresh();
  }

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const { data: answer, error: failure } = await authClient.signIn.email({
      email: String(data.get("email") ?? ""),
      password: String(data.get("password") ?? ""),
    });
    setBusy(false);
    if (failure) {
      setError(failure.message ?? "sign-in failed");
      return;
    }
    if (answer && "twoFactorRedirect" in answer && answer.twoFactorRedirect) {
      setStep("code");
      return;
    }
    done();
  }

  async function submitCode(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get("code") ?? "").trim();
    setBusy(true);
    setError(null);
    const r = await authPost(recovery ? "/two-factor/verify-backup-code" : "/two-factor/verify-totp", { code });
    setBusy(false);
    if (r.ok) return done();
    if (r.status === 429 && /locked/i.test(r.message ?? "")) setError("Too many wrong codes: the second factor is locked for 15 minutes. Try again later, or ask an owner to reset it.");
    else if (r.status === 429) setError("Too many tries at once (three in ten seconds): wait a few seconds and try again.");
    else if (r.status === 400 || /cookie/i.test(r.message ?? "")) {
      // Five wrong codes end the attempt (or it expired after 10 minutes): the password again.
      setStep("password");
      setError("This sign-in attempt has ended (too many wrong codes, or it expired). Sign in again.");
    } else setError(recovery ? "That recovery code is not valid (each works once)." : "That code is not valid.");
  }

  if (step === "code") {
    return (
      <form className="card stack" onSubmit={submitCode} key={recovery ? "recovery" : "totp"}>
        <label className="field">
          <span>{recovery ? "Recovery code" : "Authentication code"}</span>
          <input
            name="code"
            autoComplete="one-time-code"
            inputMode={recovery ? "text" : "numeric"}
            pattern={recovery ? undefined : "[0-9]{6}"}
            maxLength={recovery ? 40 : 6}
            required
            autoFocus
          />
        </label>
        <p className="muted">
          {recovery ? "One of the recovery codes you saved when you set up the second factor; each works once." : "The 6-digit code your authenticator app shows for Levelrail."}
        </p>
        <Alert>{error}</Alert>
        <button type="submit" disabled={busy}>
          Verify
        </button>
        <button type="button" className="secondary" onClick={() => setRecovery(!recovery)}>
          {recovery ? "Use the authenticator app" : "Use a recovery code"}
        </button>
      </form>
    );
  }

  return (
    <form className="card stack" onSubmit={submit}>
      <label className="field">
        <span>Email</span>
        <input name="email" type="email" autoComplete="username" required />
      </label>
      <label className="field">
        <span>Password</span>
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      <Alert>{error}</Alert>
      <button type="submit" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}
