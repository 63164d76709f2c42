import type { EnvScope } from "@levelrail/db/schema/config";
import type { Scoped } from "./paths";

/** Query keys shared by server prefetch and client queries; mutations invalidate by these. */
export const keys = {
  /** An environment's apps (and, as ["apps"], every environment's). */
  apps: (envId: string) => ["apps", envId] as const,
  allApps: () => ["apps"] as const,
  /** Every service, unpaged (and the prefix of every services list: mutations invalidate them all). */
  services: () => ["services"] as const,
  /** One page of an environment's services, newest first (`cursor` "" for the first), narrowed by `filter` (`filterParams`). */
  servicesPage: (envId: string, cursor: string, filter: { name?: string; phase?: string } = {}) => ["services", "page", envId, cursor, filter] as const,
  /** Every service of one environment, unpaged. */
  environmentServices: (envId: string) => ["services", "environment", envId] as const,
  /** One app's services. */
  appServices: (app: Scoped) => ["services", "app", app.environmentId, app.name] as const,
  /** Prefix of everything about one service: invalidating it refreshes its status, env, drift and secrets too. */
  service: (s: Scoped) => ["service", s.environmentId, s.name] as const,
  status: (s: Scoped) => [...keys.service(s), "status"] as const,
  deploys: (s: Scoped) => [...keys.service(s), "deploys"] as const,
  effectiveEnv: (s: Scoped) => [...keys.service(s), "env"] as const,
  drift: (s: Scoped) => [...keys.service(s), "drift"] as const,
  secrets: (s: Scoped) => [...keys.service(s), "secrets"] as const,
  /** The containers whose logs the Logs view can show (under its prefix, so a Deploy refreshes them). */
  logContainers: (s: Scoped) => [...keys.service(s), "log-containers"] as const,
  /** A git-sourced service's builds, newest first. */
  builds: (s: Scoped) => [...keys.service(s), "builds"] as const,
  /** CPU, memory and network samples of a service's active container (the last hour). */
  serviceMetrics: (s: Scoped) => [...keys.service(s), "metrics"] as const,
  /** A service's hook runs (under its prefix, so a Deploy refreshes them). */
  serviceHookRuns: (s: Scoped) => [...keys.service(s), "hook-runs"] as const,
  /** An app's hook runs, all services or one (`service` "" for all). */
  appHookRuns: (app: Scoped, service: string) => ["app", app.environmentId, app.name, "hook-runs", service] as const,
  hookRun: (id: string) => ["hook-run", id] as const,
  /** Deploys per day (`top`: how many services the answer lists, or "all"). */
  deployMetrics: (serviceId: string, days: number, top: number | "all") => ["metrics", "deploys", serviceId, days, top] as const,
  /** The DORA figures over one window (`7d`, `30d`, `90d`; `top` as above). */
  dora: (window: string, top: number | "all") => ["metrics", "dora", window, top] as const,
  /** Prefix of every service's queries: a tier's change can alter any service's effective env. */
  allServices: () => ["service"] as const,
  orgs: () => ["orgs"] as const,
  /** The caller's account: email, second factor, organizations that require one. */
  account: () => ["account"] as const,
  /** The caller's sessions. */
  sessions: () => ["sessions"] as const,
  /** An organization's security settings (require2fa) and its members' second factors. */
  orgSecurity: (orgId: string) => ["orgs", orgId, "security"] as const,
  /** An organization's single sign-on connection (owners only). */
  orgSso: (orgId: string) => ["orgs", orgId, "sso"] as const,
  /** The email domains an organization's single sign-on signs in, with their proofs (owners only). */
  orgSsoDomains: (orgId: string) => ["orgs", orgId, "sso-domains"] as const,
  /** The projects, and (under this prefix) each project's environments. */
  projects: () => ["projects"] as const,
  environments: (projectId: string) => ["projects", projectId, "environments"] as const,
  /** A project's preview settings and its previews of pull requests. */
  previews: (projectId: string) => ["projects", projectId, "previews"] as const,
  environment: (envId: string) => ["environment", envId] as const,
  /** The operator's current environment (remembered server-side). */
  currentEnvironment: () => ["me", "environment"] as const,
  tierEnv: (tier: EnvScope, id: string) => ["env", tier, id] as const,
  /** An organization's quotas: limit, use and source of each. */
  quotas: (orgId: string) => ["orgs", orgId, "quotas"] as const,
  /** One page of an organization's audit log under its filters (`cursor` empty: the newest page). */
  audit: (orgId: string, filters: Record<string, string>, cursor: string) => ["orgs", orgId, "audit", filters, cursor] as const,
  /** An organization's members and their roles. */
  members: (orgId: string) => ["orgs", orgId, "members"] as const,
  /** An organization's pending invitations. */
  invitations: (orgId: string) => ["orgs", orgId, "invitations"] as const,
  /** An environment's databases (and, as ["databases"], every environment's). */
  databases: (envId: string) => ["databases", envId] as const,
  /** Prefix of everything about one database: its detail (attachments, volumes, restores) and its backups. */
  database: (d: Scoped) => [...keys.environmentDatabases(d.environmentId), d.name] as const,
  /** Prefix of every database's queries in one environment (an attachment changes who attaches one). */
  environmentDatabases: (envId: string) => ["database", envId] as const,
  databaseDetail: (d: Scoped) => [...keys.database(d), "detail"] as const,
  backups: (d: Scoped) => [...keys.database(d), "backups"] as const,
  backupTargets: () => ["backup-targets"] as const,
  registryCredentials: () => ["registry-credentials"] as const,
  /** An organization's git credentials (deploy keys and tokens). */
  gitCredentials: (orgId: string) => ["orgs", orgId, "git-credentials"] as const,
  storageEnvKeys: () => ["storage-env-keys"] as const,
  /** The notification channels (and, under this prefix, each one's delivery log). */
  notificationChannels: () => ["notification-channels"] as const,
  notificationDeliveries: (channelId: string) => ["notification-channels", channelId, "deliveries"] as const,
};

/** How often live state is polled, so phase changes show without a reload. */
export const LIVE_INTERVAL_MS = 1000;
/**
 * How often the fleet's lists are polled: the dashboard shows many services and nobody watches
 * one deploy there; a service's own page keeps LIVE_INTERVAL_MS.
 */
export const FLEET_INTERVAL_MS = 5000;
/** How often a service's resource charts ask for new samples (the worker's default sampling interval). */
export const METRICS_INTERVAL_MS = 10_000;

/** Services per page of the dashboard (server prefetch and client use the same). */
export const SERVICES_PAGE = 50;
