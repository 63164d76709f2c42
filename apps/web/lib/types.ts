import type { listBackupTargets } from "@levelrail/services/config/backup-targets";
import type { listRegistryCredentials } from "@levelrail/services/config/registry-credentials";
import type { listSecrets } from "@levelrail/services/env/secrets";
import type { getHookRun, listHookRuns } from "@levelrail/services/hooks/list";
import type { deployMetrics } from "@levelrail/services/metrics/deploys";
import type { Phase, ServiceView } from "@levelrail/spec/service";

export type { ConfigDrift, EffectiveEnvEntry } from "@levelrail/services/env/effective";

/** An app as GET /api/v1/apps returns it. */
export interface AppItem {
  id: string;
  name: string;
  orgId: string;
  createdAt: string;
  services: number;
}

/** A service as GET /api/v1/services returns it: desired state plus what the worker last saw. */
export interface ServiceItem extends ServiceView {
  phase: Phase;
  activeContainer: string | null;
  message: string;
}

/** GET /api/v1/orgs. */
export interface OrgItem {
  id: string;
  name: string;
  createdAt: string;
}

/** GET /api/v1/projects. */
export interface ProjectItem {
  id: string;
  orgId: string;
  name: string;
  createdAt: string;
}

/** GET /api/v1/projects/{id}/environments. */
export interface EnvironmentItem {
  id: string;
  orgId: string;
  projectId: string;
  name: string;
  createdAt: string;
}

/** GET and PUT of /api/v1/{orgs,projects,environments}/{id}/env. */
export interface TierEnv {
  vars: Record<string, string>;
}

/** Write-only values: only their keys, the flags saying they are set and the times they changed are ever answered. */
export type SecretItem = Awaited<ReturnType<typeof listSecrets>>[number];
export type BackupTargetItem = Awaited<ReturnType<typeof listBackupTargets>>[number];
export type RegistryCredentialItem = Awaited<ReturnType<typeof listRegistryCredentials>>[number];

/** GET /api/v1/apps/{name}/hook-runs and /services/{name}/hook-runs: one page, newest first, without output. */
export type HookRunPage = Awaited<ReturnType<typeof listHookRuns>>;
export type HookRunItem = HookRunPage["runs"][number];
/** GET /api/v1/hook-runs/{id}: one run with its combined output. */
export type HookRunDetail = Awaited<ReturnType<typeof getHookRun>>;

/** GET /api/v1/metrics/deploys. */
export type DeployMetrics = Awaited<ReturnType<typeof deployMetrics>>;
