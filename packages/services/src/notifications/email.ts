import { isIP } from "node:net";
import { createTransport } from "nodemailer";
import { type EmailConfig, type NotificationPayload, subjectOf, textOf } from "@levelrail/spec/notifications";
import { type TargetPolicy, bareHost, resolveTarget } from "./address";

/** What a failed SMTP exchange is, in our words: nodemailer's error code, never the server's text. */
const SMTP_FAILURES: Record<string, string> = {
  ECONNECTION: "could not connect",
  ETIMEDOUT: "timed out",
  ESOCKET: "the connection failed",
  EDNS: "does not resolve",
  ETLS: "TLS failed (check the port and the secure setting)",
  EAUTH: "refused the login (check the username and password)",
  ENOAUTH: "needs a login (set a username and password)",
  EENVELOPE: "refused the sender or a recipient",
  EMESSAGE: "refused the message",
  EPROTOCOL: "answered outside the SMTP protocol",
  ETLSREQUIRED: "requires TLS",
};

/**
 * Why an SMTP exchange failed, for the delivery log: our own classification of nodemailer's code and
 * the SMTP reply code, never what the remote server said (its greeting or reply text may be
 * anything: a banner of an internal service, an echo of what we sent).
 */
export function smtpFailure(host: string, port: number, err: unknown): string {
  const e = (typeof err === "object" && err !== null ? err : {}) as { code?: unknown; responseCode?: unknown };
  const code = typeof e.code === "string" ? e.code : "";
  const reply = typeof e.responseCode === "number" ? ` (SMTP ${e.responseCode})` : "";
  const what = SMTP_FAILURES[code] ?? "failed";
  return `SMTP ${host}:${port} ${what}${code && !SMTP_FAILURES[code] ? ` (${code})` : ""}${reply}`;
}

/**
 * Sends one notification as a plain-text email over SMTP. The host is resolved once and every
 * address checked by the installation's policy; the connection goes to that checked address (TLS
 * still verifies the certificate for the host's name). Throws an Error saying why it failed, with
 * neither the password nor anything the server said.
 */
export async function sendEmail(
  config: EmailConfig,
  password: string | null,
  deliveryId: string,
  payload: NotificationPayload,
  o: { timeoutMs: number; policy: TargetPolicy; signal?: AbortSignal },
): Promise<void> {
  const target = await resolveTarget(config.host, o.policy);
  const transport = createTransport({
    host: target.address,
    port: config.port,
    secure: config.secure,
    // SNI and the certificate's check go by the host's name (an address literal has none).
    ...(isIP(bareHost(config.host)) ? {} : { tls: { servername: bareHost(config.host) } }),
    ...(config.username ? { auth: { user: config.username, pass: password ?? "" } } : {}),
    connectionTimeout: o.timeoutMs,
    greetingTimeout: o.timeoutMs,
    socketTimeout: o.timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  // The delivery's deadline: hang up whatever step the exchange is at.
  const hangUp = () => transport.close();
  o.signal?.addEventListener("abort", hangUp, { once: true });
  try {
    await transport.sendMail({
      from: config.from,
      to: config.to,
      subject: subjectOf(payload),
      text: textOf(payload),
      headers: { "X-Levelrail-Event": payload.event, "X-Levelrail-Delivery": deliveryId },
    });
  } catch (err) {
    throw new Error(smtpFailure(config.host, config.port, err));
  } finally {
    o.signal?.removeEventListener("abort", hangUp);
    transport.close();
  }
}
