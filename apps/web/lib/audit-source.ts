import type { Actor } from "@levelrail/auth";
import type { AuditSource } from "@levelrail/services/audit/record";

/**
 * Who the audit log names for one API request: the token (with its owner) when one was sent, else the
 * signed-in user; and the client address `server/main.mjs` resolved into `x-levelrail-client-ip`
 * (the peer, or `X-Forwarded-For` only from a trusted proxy; a client's own value is replaced there).
 */
export function auditSourceOf(actor: Actor, headers: Headers): AuditSource {
  const ip = headers.get("x-levelrail-client-ip")?.trim() || null;
  if (actor.token) return { actor: { type: "token", id: actor.token.id, name: `token ${actor.token.name} (${actor.email})` }, ip };
  return { actor: { type: "user", id: actor.userId, name: actor.email }, ip };
}
