import { listSessions } from "@levelrail/auth/account";
import { endOwnOtherSessions } from "@levelrail/services/org/security";
import { json, route } from "@/lib/api";

/**
 * The caller's signed-in browsers: user agent, address, created, last active; `current` marks this
 * one. A session an organization's single sign-on opened lists only that organization's sessions.
 */
export const GET = route(async ({ ctx }) => json(await listSessions(ctx.db, ctx.actor.userId, ctx.actor.sessionId, ctx.actor.ssoOrgId)));

/** Ends every session of the caller but this one (with an API token: every session). */
export const DELETE = route(async ({ ctx }) => json({ ended: await endOwnOtherSessions({ ctx }) }));
