import { createTransport } from "nodemailer";
import { type EmailConfig, type NotificationPayload, subjectOf, textOf } from "@levelrail/spec/notifications";

/**
 * Sends one notification as a plain-text email over SMTP. Throws an Error saying why it failed; the
 * password never appears in it.
 */
export async function sendEmail(config: EmailConfig, password: string | null, deliveryId: string, payload: NotificationPayload, o: { timeoutMs: number }): Promise<void> {
  const transport = createTransport({
    host: config.host,
    port: config.port,
    secure: config.secure,
    ...(config.username ? { auth: { user: config.username, pass: password ?? "" } } : {}),
    connectionTimeout: o.timeoutMs,
    greetingTimeout: o.timeoutMs,
    socketTimeout: o.timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    await transport.sendMail({
      from: config.from,
      to: config.to,
      subject: subjectOf(payload),
      text: textOf(payload),
      headers: { "X-Levelrail-Event": payload.event, "X-Levelrail-Delivery": deliveryId },
    });
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    throw new Error(`SMTP ${config.host}:${config.port}: ${password && password.length >= 4 ? text.split(password).join("[redacted]") : text}`);
  } finally {
    transport.close();
  }
}
