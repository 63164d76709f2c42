import type { EnvScope } from "@levelrail/db/schema/config";

/** Query keys shared by server prefetch and client queries; mutations invalidate by these. */
export const keys = {
  apps: () => ["apps"] as const,
  services: () => ["services"] as const,
  /** Prefix of everything about one service: invalidating it refreshes its status, env, drift and secrets too. */
  service: (name: string) => ["service", name] as const,
  status: (name: string) => ["service", name, "status"] as const,
  deploys: (name: string) => ["service", name, "deploys"] as const,
  effectiveEnv: (name: string) => ["service", name, "env"] as const,
  drift: (name: string) => ["service", name, "drift"] as const,
  secrets: (name: string) => ["service", name, "secrets"] as const,
  /** Prefix of every service's queries: a tier's change can alter any service's effective env. */
  allServices: () => ["service"] as const,
  orgs: () => ["orgs"] as const,
  projects: () => ["projects"] as const,
  environments: (projectId: string) => ["projects", projectId, "environments"] as const,
  tierEnv: (tier: EnvScope, id: string) => ["env", tier, id] as const,
  backupTargets: () => ["backup-targets"] as const,
  registryCredentials: () => ["registry-credentials"] as const,
  storageEnvKeys: () => ["storage-env-keys"] as const,
};

/** How often live state is polled, so phase changes show without a reload. */
export const LIVE_INTERVAL_MS = 1000;
