"use client";
// The Deploys page's figures.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "./fetcher";
import { METRICS_INTERVAL_MS, keys } from "./keys";
import { metricsSince } from "./metric-windows";
import { withQuery } from "./queries";
import type { DeployMetrics, DoraMetrics } from "./types";

/** The `top` query parameter: none for "all". */
const topParam = (top: number | "all"): { top?: string } => (top === "all" ? {} : { top: String(top) });

/**
 * The DORA figures over a window, refreshed like the deploy counts; `top`: only that many services
 * (the most released), or "all". As fresh as its polling keeps it: what the server rendered is not
 * asked for again as the page hydrates.
 */
export const useDoraMetrics = (window: string, top: number | "all") =>
  useQuery({
    queryKey: keys.dora(window, top),
    queryFn: () => api<DoraMetrics>(withQuery("/metrics/dora", { window, ...topParam(top) })),
    refetchInterval: METRICS_INTERVAL_MS,
    staleTime: METRICS_INTERVAL_MS,
    placeholderData: keepPreviousData,
  });

/** Deploys per day for the last `days` days, of one service (by id) or (`serviceId` "") the fleet, without the per-deploy samples; `top` as above. */
export const useDeployMetrics = (serviceId: string, days: number, top: number | "all") =>
  useQuery({
    queryKey: keys.deployMetrics(serviceId, days, top),
    queryFn: () => api<DeployMetrics>(withQuery("/metrics/deploys", { serviceId, since: metricsSince(days), samples: "false", ...topParam(top) })),
    refetchInterval: METRICS_INTERVAL_MS,
    staleTime: METRICS_INTERVAL_MS,
    placeholderData: keepPreviousData,
  });
