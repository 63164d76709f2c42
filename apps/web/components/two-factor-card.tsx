"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { SecondFactorView } from "@levelrail/auth/account";
import { authPost } from "@/lib/auth-routes";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { Alert } from "./alert";

interface AccountView {
  userId: string;
  email: string;
  secondFactor: SecondFactorView;
  secondFactorRequiredBy: string[];
}

export const useAccount = () => useQuery({ queryKey: keys.account(), queryFn: () => api<AccountView>("/account") });

/** What enrolment has shown so far: the otpauth URI to scan, then the recovery codes once. */
type Enrolment = { uri: string; secret: string; codes: string[] } | null;

/**
 * The second factor (better-auth's twoFactor plugin): set up TOTP with the password, confirm it
 * with a first code, then see the recovery codes once; or turn it off with the password.
 */
export function TwoFactorCard() {
  const qc = useQueryClient();
  const account = useAccount();
  const [enrolment, setEnrolment] = useState<Enrolment>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const refresh = async () => {
    await Promise.all([qc.invalidateQueries({ queryKey: keys.account() }), qc.invalidateQueries({ queryKey: keys.sessions() })]);
  };

  async function run<T>(path: string, body: unknown, then: (data: T) => void | Promise<void>) {
    setBusy(true);
    setError(null);
    const r = await authPost<T>(path, body);
    setBusy(false);
    if (r.ok && r.data) await then(r.data);
    else setError(r.message ?? `refused (${r.status})`);
  }

  const field = (e: FormEvent<HTMLFormElement>, name: string) => String(new FormData(e.currentTarget).get(name) ?? "");

  const start = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    return run<{ totpURI: string; backupCodes: string[] }>("/two-factor/enable", { password: field(e, "password") }, (d) => {
      setEnrolment({ uri: d.totpURI, secret: new URL(d.totpURI).searchParams.get("secret") ?? "", codes: d.backupCodes });
    });
  };
  const confirm = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    return run("/two-factor/verify-totp", { code: field(e, "code").trim() }, async () => {
      setCodes(enrolment?.codes ?? []);
      setEnrolment(null);
      await refresh();
    });
  };
  const turnOff = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    return run("/two-factor/disable", { password: field(e, "password") }, refresh);
  };

  const on = account.data?.secondFactor.enabled === true;
  return (
    <section className="card stack" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Second factor</h2>
      <p className="muted">
        A code from an authenticator app (TOTP) at every sign-in, besides the password. Five wrong codes lock it for 15 minutes. A lost
        device: use a recovery code, or ask an owner of your organization to reset it.
      </p>
      <Alert error={account.error} />
      {codes && (
        <div className="warning stack" role="region" aria-label="Recovery codes">
          <p>Recovery codes: each signs in once instead of a code. They are shown only now; keep them somewhere safe.</p>
          <ul className="mono" aria-label="Recovery code list">
            {codes.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
          <button type="button" onClick={() => setCodes(null)}>
            I have saved them
          </button>
        </div>
      )}
      {account.data && on && (
        <>
          <p>
            <strong>On.</strong>
            {account.data.secondFactor.lockedUntil && <> Locked after wrong codes until {new Date(account.data.secondFactor.lockedUntil).toLocaleString()}.</>}
          </p>
          <form className="inline" onSubmit={turnOff}>
            <label className="field">
              <span>Password</span>
              <input name="password" type="password" autoComplete="current-password" required />
            </label>
            <button type="submit" className="secondary" disabled={busy}>
              Turn off
            </button>
          </form>
        </>
      )}
      {account.data && !on && !enrolment && (
        <form className="inline" onSubmit={start}>
          <label className="field">
            <span>Password</span>
            <input name="password" type="password" autoComplete="current-password" required />
          </label>
          <button type="submit" disabled={busy}>
            Set up
          </button>
        </form>
      )}
      {enrolment && (
        <form className="stack" onSubmit={confirm}>
          <p>Add this to your authenticator app (open the link on the device, or type the secret), then enter the code it shows.</p>
          <p>
            <a href={enrolment.uri} className="mono" aria-label="otpauth URI">
              {enrolment.uri}
            </a>
          </p>
          <p>
            Secret: <code aria-label="TOTP secret">{enrolment.secret}</code>
          </p>
          <label className="field">
            <span>Code from the app</span>
            <input name="code" autoComplete="one-time-code" inputMode="numeric" pattern="[0-9]{6}" maxLength={6} required />
          </label>
          <button type="submit" disabled={busy}>
            Confirm
          </button>
        </form>
      )}
      <Alert>{error}</Alert>
    </section>
  );
}
