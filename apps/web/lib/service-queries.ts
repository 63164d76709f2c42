"use client";
// One service's queries (its page and tabs).
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import type { DomainStatusMap } from "@levelrail/spec/domains";
import type { ReleaseView, ServiceView, StatusView } from "@levelrail/spec/service";
import { api } from "./fetcher";
import { FLEET_INTERVAL_MS, LIVE_INTERVAL_MS, METRICS_INTERVAL_MS, keys } from "./keys";
import { type Scoped, serviceApi } from "./paths";
import type { ConfigDrift, EffectiveEnvEntry, SecretItem, ServiceMetrics } from "./types";

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

/** The env keys a storage attachment injects, as the API defines them (never a copy in the UI). */
export const useStorageEnvKeys = () =>
  useQuery({ queryKey: keys.storageEnvKeys(), queryFn: () => api<string[]>("/storage-env-keys"), staleTime: Infinity });
