import { LevelrailError } from "@levelrail/spec/errors";
import { webhookPath } from "@levelrail/spec/git";
import type { Ctx } from "../context";
import { audit } from "../audit/record";
import { rotateSecret } from "../git/source";
import { findService } from "./view";

/** The answer of a rotation: the only time the new secret is shown. */
export interface WebhookSecretView {
  sourceId: string;
  webhookPath: string;
  webhookSecret: string;
}

/**
 * POST …/services/{service}/source/webhook-secret: a new webhook secret for the service's git source;
 * the old one stops working at once. A service without a git source answers 409.
 */
export async function rotateWebhookSecret({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<WebhookSecretView> {
  const { service: s, git } = await findService(ctx, envId, name, "service.write");
  if (!git) throw new LevelrailError("conflict", `service ${name} has no git source; its image is set directly`);
  const secret = await ctx.db.transaction(async (tx) => {
    const made = await rotateSecret(ctx, tx, git);
    await audit(ctx, tx, { orgId: s.orgId, action: "service.rotate-webhook-secret", target: { type: "service", id: s.id, name: s.name } });
    return made;
  });
  return { sourceId: git.id, webhookPath: webhookPath(git.id), webhookSecret: secret };
}
