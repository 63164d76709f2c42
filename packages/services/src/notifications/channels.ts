import { randomBytes } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { notificationChannel } from "@levelrail/db/schema/notifications";
import { LevelrailError, invalid } from "@levelrail/spec/errors";
import {
  type EmailConfig,
  type NotificationEvent,
  type WebhookConfig,
  emailChannelPatch,
  notificationChannelInput,
  webhookChannelPatch,
} from "@levelrail/spec/notifications";
import { type Ctx, MAX_LIST_ROWS, bounded, isUuid, orgOf, orgWideScope, parse, scope, targetPolicy } from "../context";
import { type Action, authorize } from "../org/permissions";
import { assertQuota } from "../org/quota";
import { policyProblem } from "./address";
import type { ChannelRow } from "./send";
import { audit, fieldNames } from "../audit/record";

interface Common {
  id: string;
  orgId: string;
  name: string;
  events: NotificationEvent[];
  createdAt: string;
  updatedAt: string;
}
/** A channel as the API answers it: never its signing secret or SMTP password. */
export type ChannelView = Common & ({ kind: "webhook"; url: string; format: WebhookConfig["format"] } | ({ kind: "email"; passwordSet: boolean } & EmailConfig));

export function channelView(c: ChannelRow): ChannelView {
  const common: Common = {
    id: c.id,
    orgId: c.orgId,
    name: c.name,
    events: c.events as NotificationEvent[],
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
  if (c.kind === "webhook") {
    const w = c.config as unknown as WebhookConfig;
    return { ...common, kind: "webhook", url: w.url, format: w.format };
  }
  const e = c.config as unknown as EmailConfig;
  return { ...common, kind: "email", host: e.host, port: e.port, secure: e.secure, username: e.username, from: e.from, to: e.to, passwordSet: c.secretSealed !== null };
}

/**
 * A webhook's URL or an SMTP host may not name a loopback, private or link-local address or the
 * panel itself, unless the installation allows private targets (a name is checked again, resolved,
 * at every delivery).
 */
function checkHost(ctx: Ctx, field: "url" | "host", hostname: string) {
  const problem = policyProblem(hostname, targetPolicy(ctx));
  if (problem) throw invalid(field, `${field}: ${problem}`);
}

/** A new webhook signing secret: shown once, in the create response. */
const newSecret = () => `lrwh_${randomBytes(32).toString("base64url")}`;

export async function listChannels({ ctx }: { ctx: Ctx }): Promise<ChannelView[]> {
  const rows = await ctx.db
    .select()
    .from(notificationChannel)
    .where(inArray(notificationChannel.orgId, orgWideScope(ctx)))
    .orderBy(notificationChannel.name, notificationChannel.createdAt)
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "notification channels", "delete the ones you no longer use").map(channelView);
}

/** The caller's channel `id` (its row), or a 404 alike for one that does not exist and another organization's. */
export async function channelRow(ctx: Ctx, id: string, action: Action): Promise<ChannelRow> {
  if (!isUuid(id)) throw new LevelrailError("not_found", "notification channel not found");
  const [row] = await ctx.db.select().from(notificationChannel).where(and(eq(notificationChannel.id, id), inArray(notificationChannel.orgId, orgWideScope(ctx))));
  if (!row) throw new LevelrailError("not_found", "notification channel not found");
  authorize(ctx, action, { orgId: row.orgId }, new LevelrailError("not_found", "notification channel not found"));
  return row;
}

export async function getChannel({ ctx, id }: { ctx: Ctx; id: string }): Promise<ChannelView> {
  return channelView(await channelRow(ctx, id, "notificationChannel.read"));
}

/** Creates a channel; a webhook's signing secret is generated here and answered this once (`secret`). */
export async function createChannel({ ctx, input: raw }: { ctx: Ctx; input: unknown }): Promise<ChannelView & { secret?: string }> {
  const input = parse(notificationChannelInput, raw);
  const orgId = orgOf(ctx, input.orgId);
  authorize(ctx, "notificationChannel.write", { orgId });
  if (input.kind === "webhook") {
    const config: WebhookConfig = { url: input.url, format: input.format };
    checkHost(ctx, "url", new URL(config.url).hostname);
    const secret = newSecret();
    const values = { name: input.name, kind: "webhook" as const, config: { ...config }, events: input.events, secretSealed: ctx.kit.keyring.seal(secret) };
    const row = await insertChannel(ctx, orgId, values, fieldNames(raw));
    return { ...channelView(row), secret };
  }
  const config: EmailConfig = { host: input.host, port: input.port, secure: input.secure, username: input.username || null, from: input.from, to: input.to };
  checkHost(ctx, "host", config.host);
  const row = await insertChannel(ctx, orgId, {
    name: input.name,
    kind: "email",
    config: { ...config },
    events: input.events,
    secretSealed: input.password ? ctx.kit.keyring.seal(input.password) : null,
  }, fieldNames(raw));
  return channelView(row);
}

/** Inserts a channel within the organization's `channels` quota (409 `quota_exceeded` beyond it, nothing written). */
async function insertChannel(ctx: Ctx, orgId: string, values: Omit<typeof notificationChannel.$inferInsert, "orgId">, fields: string[]): Promise<ChannelRow> {
  return ctx.db.transaction(async (tx) => {
    await assertQuota(ctx, tx, orgId, { channels: 1 });
    const [row] = await tx
      .insert(notificationChannel)
      .values({ ...values, orgId })
      .returning();
    await audit(ctx, tx, { orgId, action: "notification-channel.create", target: { type: "notification-channel", id: row!.id, name: row!.name }, fields });
    return row!;
  });
}

/** Changes a channel's name, events or settings (never its kind; a webhook keeps its secret). */
export async function patchChannel({ ctx, id, input: raw }: { ctx: Ctx; id: string; input: unknown }): Promise<ChannelView> {
  const row = await channelRow(ctx, id, "notificationChannel.write");
  const now = new Date();
  if (row.kind === "webhook") {
    const { name, events, ...rest } = parse(webhookChannelPatch, raw);
    const { url, format } = { ...(row.config as unknown as WebhookConfig), ...rest };
    const config: WebhookConfig = { url, format };
    checkHost(ctx, "url", new URL(config.url).hostname);
    return update(ctx, id, { ...(name === undefined ? {} : { name }), ...(events === undefined ? {} : { events }), config: { ...config }, updatedAt: now }, fieldNames(raw));
  }
  const { name, events, password, username, ...rest } = parse(emailChannelPatch, raw);
  const config: EmailConfig = { ...(row.config as unknown as EmailConfig), ...rest, ...(username === undefined ? {} : { username: username || null }) };
  checkHost(ctx, "host", config.host);
  return update(ctx, id, {
    ...(name === undefined ? {} : { name }),
    ...(events === undefined ? {} : { events }),
    ...(password === undefined ? {} : { secretSealed: password ? ctx.kit.keyring.seal(password) : null }),
    config: { ...config },
    updatedAt: now,
  }, fieldNames(raw));
}

async function update(ctx: Ctx, id: string, set: Partial<typeof notificationChannel.$inferInsert>, fields: string[]): Promise<ChannelView> {
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(notificationChannel)
      .set(set)
      .where(and(eq(notificationChannel.id, id), inArray(notificationChannel.orgId, scope(ctx))))
      .returning();
    if (!row) throw new LevelrailError("not_found", "notification channel not found");
    await audit(ctx, tx, { orgId: row.orgId, action: "notification-channel.update", target: { type: "notification-channel", id: row.id, name: row.name }, fields });
    return channelView(row);
  });
}

/** Deletes a channel and its delivery log. */
export async function deleteChannel({ ctx, id }: { ctx: Ctx; id: string }): Promise<void> {
  await channelRow(ctx, id, "notificationChannel.write");
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(notificationChannel)
      .where(and(eq(notificationChannel.id, id), inArray(notificationChannel.orgId, scope(ctx))))
      .returning({ id: notificationChannel.id, orgId: notificationChannel.orgId, name: notificationChannel.name });
    if (!row) throw new LevelrailError("not_found", "notification channel not found");
    await audit(ctx, tx, { orgId: row.orgId, action: "notification-channel.delete", target: { type: "notification-channel", id: row.id, name: row.name } });
  });
}
