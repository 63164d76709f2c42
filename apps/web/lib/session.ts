import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { type Actor, actorFor } from "@levelrail/auth";
import type { Ctx } from "@levelrail/services/context";
import { server } from "./server";

/** The signed-in operator of this render, or null; one lookup per request. */
export const currentActor = cache(async (): Promise<Actor | null> => {
  // headers() first: it marks the render dynamic, so nothing here runs at build time.
  const requestHeaders = await headers();
  const { auth, db } = server();
  const session = await auth.api.getSession({ headers: requestHeaders });
  return session ? actorFor(db, session.user.id, session.user.email, { id: session.session.id, twoFactorEnabled: session.user.twoFactorEnabled === true, ssoOrgId: session.session.ssoOrgId }) : null;
});

/**
 * The service-layer context of a server component; signed-out visitors go to /login. A session
 * none of whose organizations it may act in goes to /account to enrol the second factor one
 * requires, or to /login to sign in with SSO; while one organization is reachable the pages show
 * it, and those of an organization that refuses the session answer 403 saying how to sign in.
 */
export async function requireCtx(): Promise<Ctx> {
  const ctx = await requireAccountCtx();
  if (ctx.actor.orgIds.length === 0 && (ctx.actor.secondFactorRequiredBy ?? []).length > 0) redirect("/account?enrol=required");
  if (ctx.actor.orgIds.length === 0 && (ctx.actor.ssoRequiredBy ?? []).length > 0) redirect("/login?sso=required");
  return ctx;
}

/** The context of the account page: signed in is enough (it is where a second factor is enrolled). */
export async function requireAccountCtx(): Promise<Ctx> {
  const actor = await currentActor();
  if (!actor) redirect("/login");
  const { db, kit, quotas, baseDomains } = server();
  return { db, actor, kit, quotas, baseDomains };
}
