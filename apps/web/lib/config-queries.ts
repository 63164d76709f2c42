"use client";
// An organization's configuration that pages besides Settings read: the env tiers and backup
// targets (registry and git credentials: credential-queries.ts).
import { useQuery } from "@tanstack/react-query";
import type { EnvScope } from "@levelrail/db/schema/config";
import { api } from "./fetcher";
import { keys } from "./keys";
import type { BackupTargetItem, TierEnv } from "./types";

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
