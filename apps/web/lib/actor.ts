import "server-only";
import { type Actor, actorFor, actorForToken } from "@levelrail/auth";
import { LevelrailError } from "@levelrail/spec/errors";
import { server } from "./server";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Who is calling: `Authorization: Bearer <token>` names an API token;
 * otherwise the better-auth session cookie. Null when neither is valid.
 * A cookie-authenticated change must carry the Origin of one of our own pages (browsers send it
 * on every non-GET fetch and form post), so neither a page on another port or host nor a client
 * that leaves Origin out can ride the session. Tokens need no Origin: they are never ambient.
 */
export async function actorFromRequest(req: Request): Promise<Actor | null> {
  const { db, auth, trustedOrigins } = server();
  const authorization = req.headers.get("authorization");
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1] ? actorForToken(db, match[1]) : null;
  }
  const session = await auth.api.getSession({ headers: req.headers });
  if (!session) return null;
  const origin = req.headers.get("origin");
  if (!SAFE_METHODS.has(req.method) && (origin === null || !trustedOrigins.includes(origin))) {
    throw new LevelrailError(
      "unauthenticated",
      origin === null ? "a change made with a session cookie must carry the panel's Origin; scripts use an API token" : `requests from ${origin} may not use this session`,
    );
  }
  return actorFor(db, session.user.id, session.user.email, { id: session.session.id, twoFactorEnabled: session.user.twoFactorEnabled === true, ssoOrgId: session.session.ssoOrgId });
}
