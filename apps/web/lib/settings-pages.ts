// The settings pages, in the order of the settings navigation (components/settings-nav.tsx, drawn
// by app/(panel)/settings/layout.tsx) and of the overview (/settings), which says what each holds.
// Plain data, read on the server: the navigation gets the groups as props.

export type SettingsPage = {
  href: string;
  label: string;
  /** The overview's line about the page. */
  about: string;
  /**
   * The id of the card's heading when every card was on the one Settings page (`/settings#<anchor>`):
   * the overview gives this page's entry that id, so an old link to the anchor lands on the way there.
   */
  anchor?: string;
};

export type SettingsGroup = { label: string; pages: SettingsPage[] };

/** What the navigation draws of a group: its label and its pages' addresses and names. */
export type SettingsNavGroup = { label: string; pages: Pick<SettingsPage, "href" | "label">[] };

export const SETTINGS_GROUPS: SettingsGroup[] = [
  {
    label: "Organization",
    pages: [
      { href: "/settings", label: "Overview", about: "What each settings page holds." },
      { href: "/settings/members", label: "Members", about: "Who belongs to the organization, their roles, and invitations.", },
      { href: "/settings/security", label: "Sign-in security", about: "Require a second factor of every member.", anchor: "org-security-title" },
      { href: "/settings/sso", label: "Single sign-on", about: "The organization's OpenID Connect connection (owners).", anchor: "sso-title" },
      { href: "/settings/audit", label: "Audit log", about: "Every change in the organization: who, what, when and from where.", anchor: "audit-link-title" },
      { href: "/settings/env", label: "Organization env", about: "Env vars every service of the organization gets.", },
      { href: "/settings/quotas", label: "Quotas", about: "How many apps, services, databases, domains and channels the organization has of how many it may.", anchor: "quotas-title" },
    ],
  },
  {
    label: "Integrations",
    pages: [
      { href: "/settings/backup-targets", label: "Backup targets", about: "S3-compatible storage for backups and services.", anchor: "backup-targets-title" },
      { href: "/settings/registry-credentials", label: "Registry credentials", about: "Logins to private image registries.", anchor: "registry-credentials-title" },
      { href: "/settings/git-credentials", label: "Git credentials", about: "Deploy keys and HTTPS tokens git sources fetch with.", anchor: "git-credentials-title" },
      { href: "/settings/notifications", label: "Notifications", about: "Webhook and email channels, and their deliveries.", anchor: "notifications-title" },
    ],
  },
  {
    label: "Environment settings",
    pages: [
      { href: "/settings/env-tiers", label: "Env tiers", about: "A project's env vars and those of each of its environments.", },
      { href: "/settings/previews", label: "Previews", about: "Environments for pull and merge requests, per project.", anchor: "previews-title" },
    ],
  },
  {
    label: "API",
    pages: [{ href: "/settings/api", label: "API reference", about: "Every route of the HTTP API." }],
  },
];
