import "server-only";
import { type Actor, actorFor, actorForToken } from "@levelrail/auth";
import { LevelrailError } from "@levelrail/spec/errors";
import { server } from "./server";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Who is calling: `Authorization: Bearer <token>` names an API token;
 * otherwise the better-auth session cookie. Null when neither is valid.
 * A cookie-authenticated change must come from one of our own origins, so a
 * page on another port of the same host cannot ride the session.
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
  if (!SAFE_METHODS.has(req.method) && origin !== null && !trustedOrigins.includes(origin)) {
    throw new LevelrailError("unauthenticated", `requests from ${origin} may not use this session`);
  }
  return actorFor(db, session.user.id, session.user.email);
}
