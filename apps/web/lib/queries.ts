"use client";
import { useQuery } from "@tanstack/react-query";
import type { ReleaseView, ServiceView, StatusView } from "@levelrail/spec/service";
import { api } from "./fetcher";
import { LIVE_INTERVAL_MS, keys } from "./keys";
import type { AppItem, ServiceItem } from "./types";

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
