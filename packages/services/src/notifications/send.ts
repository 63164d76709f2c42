import type { notificationChannel } from "@levelrail/db/schema/notifications";
import type { Keyring } from "@levelrail/secrets";
import type { EmailConfig, NotificationPayload, WebhookConfig } from "@levelrail/spec/notifications";
import type { Lookup } from "./address";
import { sendEmail } from "./email";
import { sendWebhook } from "./webhook";

export type ChannelRow = typeof notificationChannel.$inferSelect;

export interface DeliverOptions {
  keyring: Keyring;
  /** The panel's own host: a webhook may not target it unless its channel allows private targets. */
  panelHost?: string | undefined;
  /** One attempt's limit; default 10 s. */
  timeoutMs?: number;
  lookup?: Lookup;
}

/** The most of an error a delivery keeps. */
const MAX_ERROR = 500;

/**
 * One attempt to deliver a notification over its channel. Never throws: the outcome is
 * `{ok: true}` or `{ok: false, error}` with the reason, short and free of the channel's secret.
 */
export async function deliver(channel: ChannelRow, deliveryId: string, payload: NotificationPayload, o: DeliverOptions): Promise<{ ok: true } | { ok: false; error: string }> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  let secret: string | null = null;
  try {
    secret = channel.secretSealed ? o.keyring.open(channel.secretSealed) : null;
  } catch {
    return { ok: false, error: "the channel's secret cannot be decrypted with the configured master key" };
  }
  try {
    if (channel.kind === "webhook") {
      if (!secret) return { ok: false, error: "the channel has no signing secret" };
      await sendWebhook(channel.config as unknown as WebhookConfig, secret, deliveryId, payload, { timeoutMs, panelHost: o.panelHost, ...(o.lookup ? { lookup: o.lookup } : {}) });
    } else {
      await sendEmail(channel.config as unknown as EmailConfig, secret, deliveryId, payload, { timeoutMs });
    }
    return { ok: true };
  } catch (err) {
    let error = err instanceof Error ? err.message : String(err);
    if (secret && secret.length >= 4) error = error.split(secret).join("[redacted]");
    return { ok: false, error: error.slice(0, MAX_ERROR) };
  }
}
