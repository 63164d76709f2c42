import { createTransport } from "nodemailer";
import { smtpFailure } from "../notifications/email";

/** One plain-text message to one address; throws an Error saying why it failed (never the server's text or a password). */
export interface InviteMailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  from: string;
  user: string;
  password: string;
}

/** `LEVELRAIL_SMTP_URL` read: `smtps:` is TLS from the start (default port 465), `smtp:` STARTTLS when offered (587). */
export function smtpSettings(url: string, panelHost: string): SmtpSettings {
  const u = new URL(url);
  if (u.protocol !== "smtp:" && u.protocol !== "smtps:") throw new Error("LEVELRAIL_SMTP_URL must start with smtp:// or smtps://");
  const secure = u.protocol === "smtps:";
  return {
    host: u.hostname.replace(/^\[|\]$/g, ""),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    from: u.searchParams.get("from") ?? `levelrail@${panelHost}`,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
}

/**
 * A mailer over the installation's SMTP server, `LEVELRAIL_SMTP_URL`:
 * `smtp://user:password@host:587` (STARTTLS when offered), `smtps://…:465` (TLS from the start);
 * `?from=` sets the sender (default `levelrail@<host of the panel>`). The operator's own setting, so
 * no tenant address policy applies.
 */
export function smtpMailer(url: string, panelHost: string, o: { timeoutMs?: number } = {}): InviteMailer {
  const { host, port, secure, from, user, password } = smtpSettings(url, panelHost);
  const timeoutMs = o.timeoutMs ?? 15_000;
  return {
    async send(message) {
      const transport = createTransport({
        host,
        port,
        secure,
        ...(user ? { auth: { user, pass: password } } : {}),
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      try {
        await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
      } catch (err) {
        throw new Error(smtpFailure(host, port, err));
      } finally {
        transport.close();
      }
    },
  };
}
