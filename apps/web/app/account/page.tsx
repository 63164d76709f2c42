import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listSessions, secondFactorOf } from "@levelrail/auth/account";
import { PanelHeader } from "@/components/panel-header";
import { SessionsCard } from "@/components/sessions-card";
import { TwoFactorCard } from "@/components/two-factor-card";
import { keys } from "@/lib/keys";
import { requireAccountCtx } from "@/lib/session";

export const metadata = { title: "Account · Levelrail" };

/**
 * The signed-in operator's own sign-in: second factor and sessions. Outside the panel's layout, so
 * that a member an organization requires a second factor of reaches it before anything else.
 */
export default async function AccountPage() {
  const ctx = await requireAccountCtx();
  const qc = new QueryClient();
  const required = ctx.actor.secondFactorRequiredBy ?? [];
  await Promise.all([
    qc.prefetchQuery({
      queryKey: keys.account(),
      queryFn: async () => ({
        userId: ctx.actor.userId,
        email: ctx.actor.email,
        secondFactor: await secondFactorOf(ctx.db, ctx.actor.userId),
        secondFactorRequiredBy: required,
      }),
    }),
    qc.prefetchQuery({ queryKey: keys.sessions(), queryFn: () => listSessions(ctx.db, ctx.actor.userId, ctx.actor.sessionId, ctx.actor.ssoOrgId) }),
  ]);
  return (
    <>
      <PanelHeader ctx={ctx} />
      <main className="page">
        <HydrationBoundary state={dehydrate(qc)}>
          <h1>Account</h1>
          <p className="muted">Signed in as {ctx.actor.email}.</p>
          {required.length > 0 && (
            <p className="warning" role="alert">
              An organization you belong to requires a second factor: set one up below to use it.
            </p>
          )}
          <TwoFactorCard />
          <SessionsCard />
        </HydrationBoundary>
      </main>
    </>
  );
}
