import { revokeApiToken } from "@levelrail/auth";
import type { Ctx } from "../context";
import { audit } from "../audit/record";
import { refuseReadOnly } from "../org/permissions";

/**
 * Revokes one of the caller's API tokens (404 for anyone else's), recorded in the audit log. A token
 * belongs to an operator, not an organization: its entry has no organization.
 */
export async function revokeToken({ ctx, id }: { ctx: Ctx; id: string }): Promise<void> {
  refuseReadOnly(ctx.actor, "revoking a token");
  await ctx.db.transaction(async (tx) => {
    const t = await revokeApiToken(tx, ctx.actor.userId, id);
    await audit(ctx, tx, { orgId: null, action: "token.revoke", target: { type: "token", id: t.id, name: t.name } });
  });
}
