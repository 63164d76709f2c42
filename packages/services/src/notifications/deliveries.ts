import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { organization } from "@levelrail/db/schema/orgs";
import { notificationDelivery } from "@levelrail/db/schema/notifications";
import { type NotificationPayload, TEST_EVENT, payloadOf } from "@levelrail/spec/notifications";
import { type Ctx, parse, targetPolicy } from "../context";
import { channelRow } from "./channels";
import { deliver } from "./send";
import { audit } from "../audit/record";

type Row = typeof notificationDelivery.$inferSelect;
/** One delivery as the log shows it: what was sent (never a secret) and its outcome. */
export const deliveryView = (d: Row) => ({
  id: d.id,
  channelId: d.channelId,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
  lastError: d.lastError,
  createdAt: d.createdAt.toISOString(),
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  payload: d.payload as unknown as NotificationPayload,
});
export type DeliveryView = ReturnType<typeof deliveryView>;

const listInput = z.object({ limit: z.coerce.number().int().min(1, "must be 1 to 200").max(200, "must be 1 to 200").default(50) }).strict();

/** A channel's delivery log, newest first (`?limit=`, default 50, at most 200). */
export async function listDeliveries({ ctx, id, input }: { ctx: Ctx; id: string; input?: unknown }): Promise<DeliveryView[]> {
  const { limit } = parse(listInput, input);
  const channel = await channelRow(ctx, id, "notificationChannel.read");
  const rows = await ctx.db
    .select()
    .from(notificationDelivery)
    .where(and(eq(notificationDelivery.channelId, channel.id), eq(notificationDelivery.orgId, channel.orgId)))
    .orderBy(desc(notificationDelivery.createdAt), desc(notificationDelivery.id))
    .limit(limit);
  return rows.map(deliveryView);
}

/**
 * "Send test": one test notification over the channel now (no retries), logged with its outcome
 * like any delivery, and answered.
 */
export async function sendTest({ ctx, id, timeoutMs }: { ctx: Ctx; id: string; timeoutMs?: number }): Promise<DeliveryView> {
  const channel = await channelRow(ctx, id, "notificationChannel.write");
  const [org] = await ctx.db.select({ id: organization.id, name: organization.name }).from(organization).where(eq(organization.id, channel.orgId));
  const payload = payloadOf(TEST_EVENT, org!, `A test notification for channel ${channel.name}: it works.`, new Date());
  // Logged first (not due: the worker's notifications controller leaves it alone), so it has its id to send.
  const [row] = await ctx.db.transaction(async (tx) => {
    const rows = await tx
      .insert(notificationDelivery)
      .values({ orgId: channel.orgId, channelId: channel.id, event: TEST_EVENT, payload: { ...payload }, status: "pending", nextAttemptAt: new Date(Date.now() + 3_600_000) })
      .returning();
    await audit(ctx, tx, { orgId: channel.orgId, action: "notification-channel.test", target: { type: "notification-channel", id: channel.id, name: channel.name } });
    return rows;
  });
  const outcome = await deliver(channel, row!.id, payload, { keyring: ctx.kit.keyring, policy: targetPolicy(ctx), ...(timeoutMs ? { timeoutMs } : {}) });
  const [done] = await ctx.db
    .update(notificationDelivery)
    .set(
      outcome.ok
        ? { status: "delivered", attempts: 1, deliveredAt: new Date(), lastError: "" }
        : { status: "failed", attempts: 1, lastError: outcome.error },
    )
    .where(eq(notificationDelivery.id, row!.id))
    .returning();
  return deliveryView(done ?? row!);
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { listInput as deliveriesQuery };
