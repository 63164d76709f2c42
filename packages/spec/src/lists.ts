/**
 * Lists and defaults a page needs in the browser, with no zod: a client component importing them
 * does not pull zod into its page's bundle. The modules they belong to (./quotas, ./members,
 * ./notifications, ./database) re-export them, so other code imports them from there as before.
 */

/** The kinds of per-organization quota (see ./quotas). */
export const QUOTA_KINDS = ["apps", "services", "databases", "domains", "channels"] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];

/**
 * The roles of a member of an organization (docs/operating/teams-and-sso.md#roles). `owner`: everything, members, deleting the
 * organization; `admin`: everything but ownership; `developer`; `viewer`.
 */
export const MEMBER_ROLES = ["owner", "admin", "developer", "viewer"] as const;

/** Who may manage members and invitations. */
export const MANAGER_ROLES: readonly string[] = ["owner", "admin"];

/** Every event a notification channel can pick; the one list the API, the form and the worker use. */
export const NOTIFICATION_EVENTS = ["deploy.failed", "deploy.succeeded", "hook.failed", "crash_loop.started", "backup.failed", "backup.unverified"] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** What the form shows for each event. */
export const NOTIFICATION_EVENT_LABELS: Record<NotificationEvent, string> = {
  "deploy.failed": "Deploy failed",
  "deploy.succeeded": "Deploy succeeded",
  "hook.failed": "Hook failed",
  "crash_loop.started": "Crash loop started",
  "backup.failed": "Backup failed",
  "backup.unverified": "Backup unverified",
};

/** The newest PostgreSQL with an official image: what a database runs when none is asked for. */
export const DEFAULT_POSTGRES_VERSION = "18";
/** The most backups a schedule may keep. */
export const MAX_KEEP = 100;

/** Git providers whose API previews use (a source's `apiProvider`; see ./git). */
export const GIT_PROVIDERS = ["github", "gitea", "gitlab"] as const;
