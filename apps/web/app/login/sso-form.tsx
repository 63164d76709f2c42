"use client";
import { type FormEvent, useState } from "react";
import { Alert } from "@/components/alert";
import { authPost } from "@/lib/auth-routes";

/** What a failed single sign-on brought back (`?error=` of better-auth's callback), in words. */
export function ssoErrorText(code: string | null): string | null {
  if (!code) return null;
  if (code === "state_mismatch" || code === "state_not_found" || code === "please_restart_the_process") return "That single sign-on attempt could not be matched to this browser: start again.";
  if (code === "email_domain_not_proven") return "That organization's single sign-on signs in only emails of domains it has proven it owns, and yours is not one of them: sign in with your password, or ask its owner to prove your email's domain.";
  if (code === "unable_to_link_account" || code === "account_not_linked") return "An account with this email exists and is not a member of that organization: sign in with your password.";
  return `Single sign-on failed (${code}): start again, or ask an owner to check the organization's settings.`;
}

/**
 * Sign-in with SSO: by the email's domain, which an organization's owner claims in its settings
 * (organizations here have no slug, and people know their email); the panel answers the
 * connection's provider id and better-auth's social sign-in sends the browser to the issuer.
 */
export function SsoForm({ required, error }: { required: boolean; error: string | null }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(ssoErrorText(error));

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget).get("email") ?? "").trim();
    setBusy(true);
    setMessage(null);
    const found = await authPost<{ providerId: string }>("/sso/provider", { email });
    if (!found.ok || !found.data) {
      setBusy(false);
      setMessage(found.status === 404 ? "No organization signs in with single sign-on for this email's domain." : (found.message ?? "single sign-on is not available"));
      return;
    }
    const started = await authPost<{ url: string }>("/sign-in/social", { provider: found.data.providerId, callbackURL: "/", errorCallbackURL: "/login", loginHint: email });
    if (!started.ok || !started.data?.url) {
      setBusy(false);
      setMessage(started.message ?? "the organization's identity provider is not reachable");
      return;
    }
    window.location.assign(started.data.url);
  }

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="sso-sign-in-title">
      {/* Named apart from the password form's "Sign in" and "Email": tests and screen readers find each by name. */}
      <h2 id="sso-sign-in-title">Single sign-on</h2>
      {required && <Alert>An organization you belong to requires single sign-on: sign in with SSO.</Alert>}
      <label className="field">
        <span>Work address</span>
        <input name="email" type="email" autoComplete="username" required />
      </label>
      <Alert>{message}</Alert>
      <button type="submit" className="secondary" disabled={busy}>
        Continue with SSO
      </button>
    </form>
  );
}
