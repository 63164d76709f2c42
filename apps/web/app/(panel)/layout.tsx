import type { ReactNode } from "react";
import { Alert } from "@/components/alert";
import { PanelHeader } from "@/components/panel-header";
import { requireCtx } from "@/lib/session";

/** Every page but /login: signed-out visitors are sent to sign in. The header switches project and environment. */
export default async function PanelLayout({ children }: { children: ReactNode }) {
  const ctx = await requireCtx();
  // A session an organization's single sign-on opened acts in that organization only: say so, and how to reach the others.
  const elsewhere = ctx.actor.ssoSessionRefusedBy?.length ?? 0;
  return (
    <>
      <PanelHeader ctx={ctx} />
      <main className="page">
        {elsewhere > 0 && (
          <Alert warning>
            <p>
              You signed in through an organization&apos;s single sign-on, so this session acts in that organization only. {elsewhere === 1 ? "Your other organization asks" : `Your ${elsewhere} other organizations ask`} you to sign in the way
              {elsewhere === 1 ? " it allows" : " they allow"}: sign out, then sign in with your password and second factor, or with {elsewhere === 1 ? "its" : "their"} own single sign-on.
            </p>
          </Alert>
        )}
        {children}
      </main>
    </>
  );
}
