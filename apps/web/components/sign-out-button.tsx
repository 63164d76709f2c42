"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";

/**
 * Signs out with one POST to better-auth's endpoint (the browser sends the Origin it checks):
 * its browser client would add about 12 kB to every page of the panel for this one call.
 */
export function SignOutButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  async function signOut() {
    setBusy(true);
    const headers = { "content-type": "application/json" };
    await fetch("/api/auth/sign-out", { method: "POST", credentials: "same-origin", headers, body: "{}" }).catch(() => null);
    router.replace("/login");
    router.refresh();
  }
  return (
    <button type="button" className="secondary" onClick={signOut} disabled={busy}>
      Sign out
    </button>
  );
}
