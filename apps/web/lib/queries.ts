"use client";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import type { EnvScope } from "@levelrail/db/schema/config";
import type { DomainStatusMap } from "@levelrail/spec/domains";
import type { GitCredentialView } from "@levelrail/spec/git";
import type { ReleaseView, ServiceView, StatusView } from "@levelrail/spec/service";
import { api } from "./fetcher";
import { type FleetFilter, filterParams } from "./natural-sort";
import { type Scoped, databaseApi, envApi, serviceApi } from "./paths";
import { FLEET_INTERVAL_MS, LIVE_INTERVAL_MS, METRICS_INTERVAL_MS, SERVICES_PAGE, keys, metricsSince } from "./keys";
import type {
  AppItem,
  BackupTargetItem,
  BackupView,
  ConfigDrift,
  CurrentEnvironment,
  DatabaseDetail,
  DatabaseView,
  DeliveryView,
  DeployMetrics,
  DoraMetrics,
  EffectiveEnvEntry,
  EnvironmentItem,
  HookRunDetail,
  NotificationChannelItem,
  OrgItem,
  OrgQuotas,
  ProjectItem,
  ProjectPreviews,
  RegistryCredentialItem,
  SecretItem,
  ServiceItem,
  ServiceMetrics,
  ServicePage,
  TierEnv,
} from "./types";

const enc = encodeURIComponent;

/** An environment's apps, with how many services each has. */
export const useApps = (envId: string) => useQuery({ queryKey: keys.apps(envId), queryFn: () => api<AppItem[]>(envApi(envId, "/apps")) });

/** Every service, unpaged and not polled (pickers need names, not live phases). */
export const useAllServices = () =>
  useQuery({ queryKey: keys.services(), queryFn: () => api<ServiceItem[]>("/services"), staleTime: 60_000 });

/** One page of an environment's services, newest first, narrowed by `filter`, with their live phases, polled at the fleet's pace. */
export const useServicesPage = (envId: string, cursor: string, filter: FleetFilter) =>
  useQuery({
    queryKey: keys.servicesPage(envId, cursor, filterParams(filter)),
    queryFn: () => api<ServicePage>(withQuery("/services", { environmentId: envId, limit: SERVICES_PAGE, cursor, ...filterParams(filter) })),
    refetchInterval: FLEET_INTERVAL_MS,
    // Paging keeps showing the page it leaves until the next one arrives.
    placeholderData: keepPreviousData,
  });

/** Every service of one environment, unpaged and not polled (what deleting it would remove). */
export const useEnvironmentServices = (envId: string) =>
  useQuery({
    queryKey: keys.environmentServices(envId),
    queryFn: () => api<ServiceItem[]>(withQuery("/services", { environmentId: envId })),
  });

/** One app's services with their live phases, polled at the fleet's pace. */
export const useAppServices = (app: Scoped) =>
  useQuery({
    queryKey: keys.appServices(app),
    queryFn: () => api<ServiceItem[]>(withQuery("/services", { environmentId: app.environmentId, app: app.name })),
    refetchInterval: FLEET_INTERVAL_MS,
  });

/** A service with its domains' ownership status; polled every 5 s while a domain waits for its proof. */
export const useService = (s: Scoped) =>
  useQuery({
    queryKey: keys.service(s),
    queryFn: () => api<ServiceView & { domainStatus: DomainStatusMap }>(serviceApi(s)),
    refetchInterval: (q) => (Object.values(q.state.data?.domainStatus ?? {}).some((d) => d.status !== "verified") ? 5_000 : false),
  });

/** A deploy in flight: its service's live queries poll every second, and at the fleet's pace otherwise. */
export const liveInterval = (status: StatusView | undefined) =>
  status?.phase === "pending" || status?.phase === "deploying" ? LIVE_INTERVAL_MS : FLEET_INTERVAL_MS;

/** The interval of a query about service `s`, following that service's last known status. */
export function useServiceInterval(s: Scoped) {
  const qc = useQueryClient();
  return () => liveInterval(qc.getQueryData<StatusView>(keys.status(s)));
}

export const useStatus = (s: Scoped) =>
  useQuery({
    queryKey: keys.status(s),
    queryFn: () => api<StatusView>(serviceApi(s, "/status")),
    refetchInterval: (q) => liveInterval(q.state.data),
  });

/** The last hour of the active container's samples, polled as the worker takes them (every 10 s). */
export const useServiceMetrics = (s: Scoped) =>
  useQuery({
    queryKey: keys.serviceMetrics(s),
    queryFn: () => api<ServiceMetrics>(serviceApi(s, "/metrics")),
    refetchInterval: METRICS_INTERVAL_MS,
    placeholderData: keepPreviousData,
  });

export const useDeploys = (s: Scoped) =>
  useQuery({
    queryKey: keys.deploys(s),
    queryFn: () => api<ReleaseView[]>(serviceApi(s, "/deploys")),
    refetchInterval: useServiceInterval(s),
  });

export const useEffectiveEnv = (s: Scoped) =>
  useQuery({ queryKey: keys.effectiveEnv(s), queryFn: () => api<EffectiveEnvEntry[]>(serviceApi(s, "/env")) });

export const useDrift = (s: Scoped) => useQuery({ queryKey: keys.drift(s), queryFn: () => api<ConfigDrift>(serviceApi(s, "/drift")) });

export const useSecrets = (s: Scoped) => useQuery({ queryKey: keys.secrets(s), queryFn: () => api<SecretItem[]>(serviceApi(s, "/secrets")) });

export const useEnvironment = (envId: string, enabled = true) =>
  useQuery({ queryKey: keys.environment(envId), queryFn: () => api<EnvironmentItem>(envApi(envId)), enabled });

/** The operator's current environment, remembered server-side. */
export const useCurrentEnvironment = () =>
  useQuery({ queryKey: keys.currentEnvironment(), queryFn: () => api<CurrentEnvironment>("/me/environment") });

export const useOrgs = () => useQuery({ queryKey: keys.orgs(), queryFn: () => api<OrgItem[]>("/orgs") });

export const useQuotas = (orgId: string) => useQuery({ queryKey: keys.quotas(orgId), queryFn: () => api<OrgQuotas>(`/orgs/${enc(orgId)}/quotas`) });

/** A project's previews: refreshed while the page is open, since webhooks and the worker change them. */
export const usePreviews = (projectId: string) =>
  useQuery({ queryKey: keys.previews(projectId), queryFn: () => api<ProjectPreviews>(`/projects/${enc(projectId)}/previews`), refetchInterval: FLEET_INTERVAL_MS });

export const useProjects = () => useQuery({ queryKey: keys.projects(), queryFn: () => api<ProjectItem[]>("/projects") });

export const useEnvironments = (projectId: string | undefined) =>
  useQuery({
    queryKey: keys.environments(projectId ?? ""),
    queryFn: () => api<EnvironmentItem[]>(`/projects/${enc(projectId ?? "")}/environments`),
    enabled: projectId !== undefined,
  });

const TIER_PATHS: Record<EnvScope, string> = { organization: "orgs", project: "projects", environment: "environments" };
/** The API path of one tier's env set. */
export const tierEnvPath = (tier: EnvScope, id: string) => `/${TIER_PATHS[tier]}/${enc(id)}/env`;

export const useTierEnv = (tier: EnvScope, id: string | undefined) =>
  useQuery({
    queryKey: keys.tierEnv(tier, id ?? ""),
    queryFn: () => api<TierEnv>(tierEnvPath(tier, id ?? "")),
    enabled: id !== undefined,
  });

export const useBackupTargets = () =>
  useQuery({ queryKey: keys.backupTargets(), queryFn: () => api<BackupTargetItem[]>("/backup-targets") });

/** The backup targets environment `envId`'s databases may use: its organization's (an operator may belong to several). */
export function useEnvironmentBackupTargets(envId: string): BackupTargetItem[] | undefined {
  const targets = useBackupTargets();
  const orgId = useEnvironment(envId).data?.orgId;
  return orgId === undefined ? undefined : targets.data?.filter((t) => t.orgId === orgId);
}

export const useRegistryCredentials = () =>
  useQuery({ queryKey: keys.registryCredentials(), queryFn: () => api<RegistryCredentialItem[]>("/registry-credentials") });

/** An organization's git credentials; `orgId` undefined (not known yet): not asked. */
export const useGitCredentials = (orgId: string | undefined) =>
  useQuery({ queryKey: keys.gitCredentials(orgId ?? ""), queryFn: () => api<GitCredentialView[]>(`/orgs/${enc(orgId ?? "")}/git-credentials`), enabled: orgId !== undefined });

export const useNotificationChannels = () =>
  useQuery({ queryKey: keys.notificationChannels(), queryFn: () => api<NotificationChannelItem[]>("/notification-channels") });

/** A channel's delivery log, newest first; polled while a delivery is pending (retries show as they happen). */
export const useNotificationDeliveries = (channelId: string) =>
  useQuery({
    queryKey: keys.notificationDeliveries(channelId),
    queryFn: () => api<DeliveryView[]>(`/notification-channels/${enc(channelId)}/deliveries?limit=20`),
    refetchInterval: (q) => (q.state.data?.some((d) => d.status === "pending") ? LIVE_INTERVAL_MS * 2 : FLEET_INTERVAL_MS),
  });

/** Whether a database is on its way somewhere: starting, or restoring. */
const databaseBusy = (d: DatabaseView | DatabaseDetail | undefined) =>
  d?.phase === "pending" || d?.phase === "starting" || (d !== undefined && "restores" in d && d.restores.some((r) => r.status === "running"));

/** An environment's databases with their live phases, polled every second while one starts, at the fleet's pace otherwise. */
export const useDatabases = (envId: string) =>
  useQuery({
    queryKey: keys.databases(envId),
    queryFn: () => api<DatabaseView[]>(envApi(envId, "/databases")),
    refetchInterval: (q) => (q.state.data?.some(databaseBusy) ? LIVE_INTERVAL_MS : FLEET_INTERVAL_MS),
  });

/** One database with who attaches it, its kept volumes and latest restores; polled like a service's status. */
export const useDatabase = (d: Scoped) =>
  useQuery({
    queryKey: keys.databaseDetail(d),
    queryFn: () => api<DatabaseDetail>(databaseApi(d)),
    refetchInterval: (q) => (databaseBusy(q.state.data) ? LIVE_INTERVAL_MS : FLEET_INTERVAL_MS),
  });

/** Whether a backup is being taken or verified (again). */
export const backupBusy = (b: BackupView) => b.status === "running" || b.step !== null;

/** A database's backups, newest first, polled every second while one runs or is verified. */
export const useBackups = (d: Scoped) =>
  useQuery({
    queryKey: keys.backups(d),
    queryFn: () => api<BackupView[]>(databaseApi(d, "/backups")),
    refetchInterval: (q) => (q.state.data?.some(backupBusy) ? LIVE_INTERVAL_MS : FLEET_INTERVAL_MS),
  });

/** The env keys a storage attachment injects, as the API defines them (never a copy in the UI). */
export const useStorageEnvKeys = () =>
  useQuery({ queryKey: keys.storageEnvKeys(), queryFn: () => api<string[]>("/storage-env-keys"), staleTime: Infinity });

/** A path with its query string; empty values are left out. */
export function withQuery(path: string, params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}

/** One run with its output, polled while it runs so the output streams in. */
export const useHookRun = (id: string) =>
  useQuery({
    queryKey: keys.hookRun(id),
    queryFn: () => api<HookRunDetail>(`/hook-runs/${enc(id)}`),
    refetchInterval: (q) => (q.state.data?.outcome === "running" ? LIVE_INTERVAL_MS : false),
  });

/** The DORA figures over a window, refreshed like the deploy counts. */
export const useDoraMetrics = (window: string) =>
  useQuery({
    queryKey: keys.dora(window),
    queryFn: () => api<DoraMetrics>(withQuery("/metrics/dora", { window })),
    refetchInterval: 10_000,
    placeholderData: keepPreviousData,
  });

/** Deploys per day for the last `days` days, of one service (by id) or (`serviceId` "") the fleet. */
export const useDeployMetrics = (serviceId: string, days: number) =>
  useQuery({
    queryKey: keys.deployMetrics(serviceId, days),
    queryFn: () => api<DeployMetrics>(withQuery("/metrics/deploys", { serviceId, since: metricsSince(days) })),
    refetchInterval: 10_000,
    placeholderData: keepPreviousData,
  });
