import "server-only";
import type { Ctx } from "@levelrail/services/context";
import { type Action, type Target, decide } from "@levelrail/services/org/permissions";

/**
 * Why the caller's role may not do `action` on `target` (the verb's own 403 message, naming the role
 * that would), or null when it may. The verbs decide; pages only disable what they would refuse.
 */
export function deniedBecause(ctx: Ctx, target: Target, action: Action): string | null {
  const d = decide(ctx.actor.memberships, ctx.actor.orgIds, action, target);
  return d === "ok" ? null : d.message;
}
