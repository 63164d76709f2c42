import Link from "@/components/link";
import type { ReactNode } from "react";
import { Alert } from "@/components/alert";
import { PanelHeader } from "@/components/panel-header";
import { requireCtx } from "@/lib/session";

/** Every page but /login: signed-out visitors are sent to sign in. The header switches project and environment. */
export default async function PanelLayout({ children }: { children: ReactNode }) {
  const ctx = await requireCtx();
  // A session an organization's single sign-on opened acts in that organization only: say so, and how to reach the others.
  const elsewhere = ctx.actor.ssoSessionRefusedBy?.length ?? 0;
  // Organizations that require a second factor or single sign-on this session lacks: the others work, those refuse it (403 saying how to sign in).
  const needFactor = ctx.actor.secondFactorRequiredBy?.length ?? 0;
  const needSso = ctx.actor.ssoRequiredBy?.length ?? 0;
  const some = (n: number) => (n === 1 ? "An organization you belong to requires" : `${n} organizations you belong to require`);
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
        {needFactor > 0 && (
          <Alert warning>
            <p>
              {some(needFactor)} a second factor: this session does not reach {needFactor === 1 ? "it" : "them"} until you enrol one on <Link href="/account">your account page</Link>.
            </p>
          </Alert>
        )}
        {needSso > 0 && (
          <Alert warning>
            <p>
              {some(needSso)} single sign-on: this session does not reach {needSso === 1 ? "it" : "them"}; sign out, then sign in with SSO.
            </p>
          </Alert>
        )}
        {children}
      </main>
    </>
  );
}
