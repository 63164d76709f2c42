"use client";
import { useQuery } from "@tanstack/react-query";
import type { EnvScope } from "@levelrail/db/schema/config";
import type { ReleaseView, ServiceView, StatusView } from "@levelrail/spec/service";
import { api } from "./fetcher";
import { LIVE_INTERVAL_MS, keys } from "./keys";
import type {
  AppItem,
  BackupTargetItem,
  ConfigDrift,
  EffectiveEnvEntry,
  EnvironmentItem,
  OrgItem,
  ProjectItem,
  RegistryCredentialItem,
  SecretItem,
  ServiceItem,
  TierEnv,
} from "./types";

const enc = encodeURIComponent;

export const useApps = () => useQuery({ queryKey: keys.apps(), queryFn: () => api<AppItem[]>("/apps") });

/** Every service with its live phase, polled. */
export const useServices = () =>
  useQuery({ queryKey: keys.services(), queryFn: () => api<ServiceItem[]>("/services"), refetchInterval: LIVE_INTERVAL_MS });

export const useService = (name: string) =>
  useQuery({ queryKey: keys.service(name), queryFn: () => api<ServiceView>(`/services/${enc(name)}`) });

export const useStatus = (name: string) =>
  useQuery({
    queryKey: keys.status(name),
    queryFn: () => api<StatusView>(`/services/${enc(name)}/status`),
    refetchInterval: LIVE_INTERVAL_MS,
  });

export const useDeploys = (name: string) =>
  useQuery({
    queryKey: keys.deploys(name),
    queryFn: () => api<ReleaseView[]>(`/services/${enc(name)}/deploys`),
    refetchInterval: LIVE_INTERVAL_MS,
  });

export const useEffectiveEnv = (name: string) =>
  useQuery({ queryKey: keys.effectiveEnv(name), queryFn: () => api<EffectiveEnvEntry[]>(`/services/${enc(name)}/env`) });

export const useDrift = (name: string) =>
  useQuery({ queryKey: keys.drift(name), queryFn: () => api<ConfigDrift>(`/services/${enc(name)}/drift`) });

export const useSecrets = (name: string) =>
  useQuery({ queryKey: keys.secrets(name), queryFn: () => api<SecretItem[]>(`/services/${enc(name)}/secrets`) });

export const useOrgs = () => useQuery({ queryKey: keys.orgs(), queryFn: () => api<OrgItem[]>("/orgs") });

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

export const useRegistryCredentials = () =>
  useQuery({ queryKey: keys.registryCredentials(), queryFn: () => api<RegistryCredentialItem[]>("/registry-credentials") });

/** The env keys a storage attachment injects, as the API defines them (never a copy in the UI). */
export const useStorageEnvKeys = () =>
  useQuery({ queryKey: keys.storageEnvKeys(), queryFn: () => api<string[]>("/storage-env-keys"), staleTime: Infinity });
