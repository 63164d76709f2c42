"use client";
// The Deploys page's figures.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "./fetcher";
import { keys } from "./keys";
import { metricsSince } from "./metric-windows";
import { withQuery } from "./queries";
import type { DeployMetrics, DoraMetrics } from "./types";

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
