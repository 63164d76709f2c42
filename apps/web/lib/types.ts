// What the API answers, derived from the verbs' return types (the route handlers send them as they are).
import type { listBackupTargets } from "@levelrail/services/config/backup-targets";
import type { listRegistryCredentials } from "@levelrail/services/config/registry-credentials";
import type { listChannels } from "@levelrail/services/notifications/channels";
import type { listApps } from "@levelrail/services/app/app";
import type { listSecrets } from "@levelrail/services/env/secrets";
import type { getTierEnv } from "@levelrail/services/env/vars";
import type { getHookRun, listHookRuns } from "@levelrail/services/hooks/list";
import type { serviceMetrics } from "@levelrail/services/metrics/containers";
import type { deployMetrics } from "@levelrail/services/metrics/deploys";
import type { DoraView } from "@levelrail/services/metrics/dora";
import type { listOrgs } from "@levelrail/services/org/list";
import type { getQuotas } from "@levelrail/services/org/quota";
import type { getCurrentEnvironment } from "@levelrail/services/operator/preference";
import type { listEnvironments, listProjects } from "@levelrail/services/project/list";
import type { listServices, listServicesPage } from "@levelrail/services/service/view";
import type { getProjectPreviews } from "@levelrail/services/preview/settings";

export type { ConfigDrift, EffectiveEnvEntry } from "@levelrail/services/env/effective";
/** GET …/databases (DatabaseView), GET …/databases/{db} (DatabaseDetail), GET …/backups (BackupView): never a password. */
export type { BackupView, DatabaseDetail, DatabaseView, RestoreView } from "@levelrail/services/database/view";

/** GET /api/v1/environments/{envId}/apps: an app with its number of services. */
export type AppItem = Awaited<ReturnType<typeof listApps>>[number];

/** GET /api/v1/services: desired state plus what the worker last saw. */
export type ServiceItem = Awaited<ReturnType<typeof listServices>>[number];
/** GET /api/v1/services?limit=&cursor=: one page, newest first. */
export type ServicePage = Awaited<ReturnType<typeof listServicesPage>>;

/** GET /api/v1/orgs. */
export type OrgItem = Awaited<ReturnType<typeof listOrgs>>[number];

/** GET /api/v1/orgs/{id}/quotas. */
export type OrgQuotas = Awaited<ReturnType<typeof getQuotas>>;

/** GET /api/v1/projects. */
export type ProjectItem = Awaited<ReturnType<typeof listProjects>>[number];

/** GET /api/v1/projects/{id}/environments (and GET /api/v1/environments/{id}). */
export type EnvironmentItem = Awaited<ReturnType<typeof listEnvironments>>[number];

/** GET and PUT /api/v1/me/environment: the operator's current environment and its project. */
export type CurrentEnvironment = NonNullable<Awaited<ReturnType<typeof getCurrentEnvironment>>>;

/** GET and PUT of /api/v1/{orgs,projects,environments}/{id}/env. */
export type TierEnv = Awaited<ReturnType<typeof getTierEnv>>;

/** Write-only values: only their keys, the flags saying they are set and the times they changed are ever answered. */
export type SecretItem = Awaited<ReturnType<typeof listSecrets>>[number];
export type BackupTargetItem = Awaited<ReturnType<typeof listBackupTargets>>[number];
export type RegistryCredentialItem = Awaited<ReturnType<typeof listRegistryCredentials>>[number];
/** GET /api/v1/notification-channels: never a signing secret or SMTP password. */
export type NotificationChannelItem = Awaited<ReturnType<typeof listChannels>>[number];
/** GET /api/v1/notification-channels/{id}/deliveries: one delivery of the log. */
export type { DeliveryView } from "@levelrail/services/notifications/deliveries";

/** GET …/apps/{name}/hook-runs and …/services/{name}/hook-runs: one page, newest first, without output. */
export type HookRunPage = Awaited<ReturnType<typeof listHookRuns>>;
export type HookRunItem = HookRunPage["runs"][number];
/** GET /api/v1/hook-runs/{id}: one run with its combined output. */
export type HookRunDetail = Awaited<ReturnType<typeof getHookRun>>;

/** GET /api/v1/metrics/deploys. */
export type DeployMetrics = Awaited<ReturnType<typeof deployMetrics>>;
/** GET /api/v1/metrics/dora. */
export type DoraMetrics = DoraView;

/** GET …/services/{service}/metrics: the active container's samples of the last hour. */
export type ServiceMetrics = Awaited<ReturnType<typeof serviceMetrics>>;

/** GET /api/v1/projects/{id}/previews: the settings (null: not set up) and the previews, newest first. */
export type ProjectPreviews = Awaited<ReturnType<typeof getProjectPreviews>>;
