"use client";
// The Settings page's own queries: quotas, previews, notification channels and their deliveries.
import { useQuery } from "@tanstack/react-query";
import { api } from "./fetcher";
import { FLEET_INTERVAL_MS, LIVE_INTERVAL_MS, keys } from "./keys";
import type { DeliveryView, NotificationChannelItem, OrgQuotas, ProjectPreviews } from "./types";

const enc = encodeURIComponent;

export const useQuotas = (orgId: string) => useQuery({ queryKey: keys.quotas(orgId), queryFn: () => api<OrgQuotas>(`/orgs/${enc(orgId)}/quotas`) });

/** A project's previews: refreshed while the page is open, since webhooks and the worker change them. */
export const usePreviews = (projectId: string) =>
  useQuery({ queryKey: keys.previews(projectId), queryFn: () => api<ProjectPreviews>(`/projects/${enc(projectId)}/previews`), refetchInterval: FLEET_INTERVAL_MS });

export const useNotificationChannels = () =>
  useQuery({ queryKey: keys.notificationChannels(), queryFn: () => api<NotificationChannelItem[]>("/notification-channels") });

/** A channel's delivery log, newest first; polled while a delivery is pending (retries show as they happen). */
export const useNotificationDeliveries = (channelId: string) =>
  useQuery({
    queryKey: keys.notificationDeliveries(channelId),
    queryFn: () => api<DeliveryView[]>(`/notification-channels/${enc(channelId)}/deliveries?limit=20`),
    refetchInterval: (q) => (q.state.data?.some((d) => d.status === "pending") ? LIVE_INTERVAL_MS * 2 : FLEET_INTERVAL_MS),
  });
