import { z } from "zod";
import { NOTIFICATION_EVENTS, type NotificationEvent } from "./lists";

export { NOTIFICATION_EVENTS, NOTIFICATION_EVENT_LABELS, type NotificationEvent } from "./lists";

/** The event of a "Send test" delivery (not one a channel picks). */
export const TEST_EVENT = "test";

export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The header carrying `sha256=<hex HMAC-SHA256 of the body with the channel's secret>`. */
export const SIGNATURE_HEADER = "X-Levelrail-Signature";

const name = z.string().trim().min(1, "is required").max(100);
const events = z
  .array(z.enum(NOTIFICATION_EVENTS, { error: `must be one of ${NOTIFICATION_EVENTS.join(", ")}` }))
  .min(1, "pick at least one event")
  .refine((e) => new Set(e).size === e.length, "lists an event twice");
const url = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL like https://hooks.example.com/levelrail" })
  .max(2048, "must be at most 2048 characters");
const host = z
  .string()
  .trim()
  .min(1, "is required")
  .max(253)
  .regex(/^[a-z0-9.-]+$|^\[?[0-9a-f:.]+\]?$/i, "must be a host name or address like smtp.example.com");
const port = z.number({ error: "must be a port number" }).int("must be a whole number").min(1, "must be 1 to 65535").max(65535, "must be 1 to 65535");
const email = z.email({ error: "must be an email address like ops@example.com" }).max(254);
const orgId = z.string().uuid().optional();

/** The fields of a webhook channel (the secret is generated, never given). */
const webhookFields = {
  name,
  events,
  url,
  /** `json` (the payload) or `slack` (`{text}`, for a Slack-compatible incoming webhook). */
  format: z.enum(WEBHOOK_FORMATS, { error: "must be json or slack" }),
  // No `allowPrivate`: whether private targets may be reached is the installation's setting
  // (LEVELRAIL_ALLOW_PRIVATE_TARGETS), never a channel's; a request that sends it is a 400 naming it.
};

/** The fields of an email channel; the SMTP password is write-only. */
const emailFields = {
  name,
  events,
  host,
  port,
  /** TLS from the first byte (port 465); false: plain, upgraded with STARTTLS when the server offers it. */
  secure: z.boolean({ error: "must be true or false" }),
  username: z.string().max(255).optional(),
  password: z.string().max(4096).optional(),
  from: email,
  to: z.array(email).min(1, "name at least one recipient").max(20, "at most 20 recipients"),
};

export const webhookChannelInput = z
  .object({ kind: z.literal("webhook"), ...webhookFields, format: webhookFields.format.default("json"), orgId })
  .strict();
export const emailChannelInput = z
  .object({ kind: z.literal("email"), ...emailFields, secure: emailFields.secure.default(false), orgId })
  .strict();

/** A new channel; shared by the API and the form. */
export const notificationChannelInput = z.discriminatedUnion("kind", [webhookChannelInput, emailChannelInput], {
  error: "kind: must be webhook or email",
});
export type NotificationChannelInput = z.infer<typeof notificationChannelInput>;
export type WebhookChannelInput = z.infer<typeof webhookChannelInput>;
export type EmailChannelInput = z.infer<typeof emailChannelInput>;

/** A change to a webhook channel: any of its fields (never its kind). */
export const webhookChannelPatch = z.object(webhookFields).partial().strict();
/** A change to an email channel; `password: null` removes the password. */
export const emailChannelPatch = z
  .object({ ...emailFields, username: emailFields.username.nullable(), password: z.string().max(4096).nullable() })
  .partial()
  .strict();

/** What a webhook channel stores in `config`. */
export interface WebhookConfig {
  url: string;
  format: WebhookFormat;
}
/** What an email channel stores in `config` (the password is sealed apart). */
export interface EmailConfig {
  host: string;
  port: number;
  secure: boolean;
  username: string | null;
  from: string;
  to: string[];
}

/** Names and ids (never a value) of what a notification is about. */
export interface Named {
  id: string;
  name: string;
}

/**
 * What a notification says: built only from names, ids, images, outcomes and messages the worker
 * already redacted. A webhook's JSON body is this plus the delivery's id.
 */
export interface NotificationPayload {
  event: NotificationEvent | typeof TEST_EVENT;
  organization: Named;
  project: Named | null;
  environment: Named | null;
  /** The service (with its app's name), for deploy, hook and crash-loop events. */
  service: (Named & { app: string }) | null;
  /** The managed database, for backup events. */
  database: Named | null;
  release: { id: string; image: string; outcome: string } | null;
  hookRun: { id: string; phase: string } | null;
  backup: { id: string; status: string } | null;
  crashLoop: { id: string } | null;
  message: string;
  at: string;
}

/** An empty payload of `event`, to fill in. */
export function payloadOf(event: NotificationPayload["event"], organization: Named, message: string, at: Date): NotificationPayload {
  return { event, organization, project: null, environment: null, service: null, database: null, release: null, hookRun: null, backup: null, crashLoop: null, message, at: at.toISOString() };
}

/** One line saying what happened: `deploy failed: shop/web in production`. */
export function summaryOf(p: NotificationPayload): string {
  const where = p.environment ? ` in ${p.environment.name}` : "";
  const svc = p.service ? `${p.service.app}/${p.service.name}${where}` : "";
  const db = p.database ? `database ${p.database.name}${where}` : "";
  switch (p.event) {
    case "deploy.failed":
      return `deploy failed: ${svc}`;
    case "deploy.succeeded":
      return `deploy succeeded: ${svc}`;
    case "hook.failed":
      return `${p.hookRun?.phase ?? "a"} hook failed: ${svc}`;
    case "crash_loop.started":
      return `crash loop: ${svc}`;
    case "backup.failed":
      return `backup failed: ${db}`;
    case "backup.unverified":
      return `backup unverified: ${db}`;
    case TEST_EVENT:
      return `test notification for ${p.organization.name}`;
  }
}

/** An email's subject: `[Levelrail] deploy failed: shop/web in production`. */
export const subjectOf = (p: NotificationPayload) => `[Levelrail] ${summaryOf(p)}`;

/** The plain-text body of an email (and the detail of a Slack message). */
export function textOf(p: NotificationPayload): string {
  const lines = [summaryOf(p), ""];
  if (p.message) lines.push(p.message, "");
  const row = (label: string, value: string | undefined) => value && lines.push(`${label}: ${value}`);
  row("Organization", p.organization.name);
  row("Project", p.project?.name);
  row("Environment", p.environment?.name);
  row("Service", p.service ? `${p.service.app}/${p.service.name}` : undefined);
  row("Database", p.database?.name);
  row("Image", p.release?.image);
  row("Release", p.release ? `${p.release.id} (${p.release.outcome})` : undefined);
  row("Hook run", p.hookRun?.id);
  row("Backup", p.backup ? `${p.backup.id} (${p.backup.status})` : undefined);
  row("At", p.at);
  return lines.join("\n");
}

/** A Slack-compatible body: `{text}` with the summary in bold. */
export function slackBodyOf(p: NotificationPayload): { text: string } {
  const [, ...rest] = textOf(p).split("\n");
  return { text: [`*${summaryOf(p)}*`, ...rest].join("\n").trimEnd() };
}
