import { createOperator } from "@levelrail/auth";
import { acceptBySignUp, acceptInvitation } from "@levelrail/services/org/accept";
import { refuseReadOnly } from "@levelrail/services/org/permissions";
import { LevelrailError, errorBody, errorHeaders, httpStatus } from "@levelrail/spec/errors";
import { actorFromRequest } from "@/lib/actor";
import { auditSourceOf } from "@/lib/audit-source";
import { parseJsonBody, readCapped, refuseNul } from "@/lib/request-body";
import { server } from "@/lib/server";

/**
 * `{"token"}` signed in (session or API token): the caller, who must be the invited address,
 * becomes a member. `{"token", "password"}` signed out: the invited address gets an account with
 * that password (201), then signs in as usual. The token is the credential, so this is the one
 * route that serves a signed-out caller; a cookie or a sign-up must come from the panel's Origin.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    const { db, auth, trustedOrigins } = server();
    const actor = await actorFromRequest(req);
    const input = parseJsonBody(await readCapped(req));
    refuseNul(input);
    if (actor) {
      refuseReadOnly(actor, "accepting an invitation");
      return Response.json(await acceptInvitation({ db, actor, input, source: auditSourceOf(actor, req.headers) }));
    }
    if (req.headers.get("authorization") !== null) throw new LevelrailError("unauthenticated", "this API token is not valid");
    const origin = req.headers.get("origin");
    if (origin === null || !trustedOrigins.includes(origin)) throw new LevelrailError("unauthenticated", "accept an invitation from its link in the panel, or sign in first");
    const ip = req.headers.get("x-levelrail-client-ip")?.trim() || null;
    const accepted = await acceptBySignUp({ db, input, ip, createAccount: (email, password) => createOperator(auth, email, password) });
    return Response.json(accepted, { status: 201 });
  } catch (err) {
    if (err instanceof LevelrailError) return Response.json(errorBody(err), { status: httpStatus(err.code), headers: errorHeaders(err) });
    console.error(`[api] POST /api/v1/invitations/accept failed: ${err instanceof Error ? err.name : typeof err}`);
    return Response.json(errorBody(new LevelrailError("internal", "internal error; the server log has the details")), { status: 500 });
  }
}
