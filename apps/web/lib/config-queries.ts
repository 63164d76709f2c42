"use client";
// An organization's configuration that pages besides Settings read: the env tiers, backup targets,
// registry and git credentials.
import { useQuery } from "@tanstack/react-query";
import type { EnvScope } from "@levelrail/db/schema/config";
import type { GitCredentialView } from "@levelrail/spec/git";
import { api } from "./fetcher";
import { keys } from "./keys";
import type { BackupTargetItem, RegistryCredentialItem, TierEnv } from "./types";

const enc = encodeURIComponent;

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

/** An organization's git credentials; `orgId` undefined (not known yet): not asked. */
export const useGitCredentials = (orgId: string | undefined) =>
  useQuery({ queryKey: keys.gitCredentials(orgId ?? ""), queryFn: () => api<GitCredentialView[]>(`/orgs/${enc(orgId ?? "")}/git-credentials`), enabled: orgId !== undefined });
