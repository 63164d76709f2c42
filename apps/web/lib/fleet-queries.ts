"use client";
// An environment's apps and services (dashboard, environment and app pages, the Deploys page's picker).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "./fetcher";
import { FLEET_INTERVAL_MS, SERVICES_PAGE, keys } from "./keys";
import { type FleetFilter, filterParams } from "./natural-sort";
import { type Scoped, envApi } from "./paths";
import { withQuery } from "./queries";
import type { AppItem, ServiceItem, ServicePage } from "./types";

/** An environment's apps, with how many services each has. */
export const useApps = (envId: string) => useQuery({ queryKey: keys.apps(envId), queryFn: () => api<AppItem[]>(envApi(envId, "/apps")) });

/** Every service, unpaged and not polled (pickers need names, not live phases); asked once `enabled`. */
export const useAllServices = (enabled: boolean) =>
  useQuery({ queryKey: keys.services(), queryFn: () => api<ServiceItem[]>("/services"), staleTime: 60_000, enabled });

/** One page of an environment's services, newest first, narrowed by `filter`, with their live phases, polled at the fleet's pace. */
export const useServicesPage = (envId: string, cursor: string, filter: FleetFilter) =>
  useQuery({
    queryKey: keys.servicesPage(envId, cursor, filterParams(filter)),
    queryFn: () => api<ServicePage>(withQuery("/services", { environmentId: envId, limit: SERVICES_PAGE, cursor, ...filterParams(filter) })),
    refetchInterval: FLEET_INTERVAL_MS,
    // As fresh as its polling keeps it: the page the server rendered is not asked again as the
    // page hydrates (up to 38 kB on a busy host, where hydration comes over a second later).
    staleTime: FLEET_INTERVAL_MS,
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
    staleTime: FLEET_INTERVAL_MS,
  });
