"use client";
// The Settings page's own queries: quotas, previews, notification channels, git credentials (which a
// service's Source card lists too). A channel's delivery log asks its own (notification-deliveries.tsx).
import { useQuery } from "@tanstack/react-query";
import { api } from "./fetcher";
import { FLEET_INTERVAL_MS, keys } from "./keys";
import type { GitCredentialView } from "@levelrail/spec/git";
import type { NotificationChannelItem, OrgQuotas, ProjectPreviews } from "./types";

const enc = encodeURIComponent;

export const useQuotas = (orgId: string) => useQuery({ queryKey: keys.quotas(orgId), queryFn: () => api<OrgQuotas>(`/orgs/${enc(orgId)}/quotas`) });

/** A project's previews: refreshed while the page is open, since webhooks and the worker change them. */
export const usePreviews = (projectId: string) =>
  useQuery({ queryKey: keys.previews(projectId), queryFn: () => api<ProjectPreviews>(`/projects/${enc(projectId)}/previews`), refetchInterval: FLEET_INTERVAL_MS });

export const useNotificationChannels = () =>
  useQuery({ queryKey: keys.notificationChannels(), queryFn: () => api<NotificationChannelItem[]>("/notification-channels") });

/** An organization's git credentials; `orgId` undefined (not known yet): not asked. */
export const useGitCredentials = (orgId: string | undefined) =>
  useQuery({ queryKey: keys.gitCredentials(orgId ?? ""), queryFn: () => api<GitCredentialView[]>(`/orgs/${enc(orgId ?? "")}/git-credentials`), enabled: orgId !== undefined });
