import type { notificationChannel } from "@levelrail/db/schema/notifications";
import type { Keyring } from "@levelrail/secrets";
import type { EmailConfig, NotificationPayload, WebhookConfig } from "@levelrail/spec/notifications";
import type { TargetPolicy } from "./address";
import { sendEmail } from "./email";
import { sendWebhook } from "./webhook";

export type ChannelRow = typeof notificationChannel.$inferSelect;

export interface DeliverOptions {
  keyring: Keyring;
  /** The installation's address policy: private targets only with LEVELRAIL_ALLOW_PRIVATE_TARGETS. */
  policy: TargetPolicy;
  /** The delivery's deadline, from its start to its outcome (DNS, connect, TLS, send, answer); default 10 s. */
  timeoutMs?: number;
}

/** The most of an error a delivery keeps. */
const MAX_ERROR = 500;

/**
 * One attempt to deliver a notification over its channel, within its deadline whatever the remote
 * side does (a slow DNS answer, a server that trickles its greeting). Never throws: the outcome is
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
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      deadline.abort();
      reject(new Error(`no outcome within ${timeoutMs} ms (the delivery's deadline)`));
    }, timeoutMs);
  });
  try {
    const send =
      channel.kind === "webhook"
        ? secret
          ? sendWebhook(channel.config as unknown as WebhookConfig, secret, deliveryId, payload, { timeoutMs, policy: o.policy, signal: deadline.signal })
          : Promise.reject(new Error("the channel has no signing secret"))
        : sendEmail(channel.config as unknown as EmailConfig, secret, deliveryId, payload, { timeoutMs, policy: o.policy, signal: deadline.signal });
    // The sender's own failure after the deadline is not wanted (the race is decided).
    send.catch(() => undefined);
    await Promise.race([send, expired]);
    return { ok: true };
  } catch (err) {
    let error = err instanceof Error ? err.message : String(err);
    if (secret && secret.length >= 4) error = error.split(secret).join("[redacted]");
    return { ok: false, error: error.slice(0, MAX_ERROR) };
  } finally {
    clearTimeout(timer);
    expired.catch(() => undefined);
  }
}
