// The Deploys page's periods and windows, apart from keys.ts (which every page loads).

/** The deploy-metrics periods the UI offers, in days. */
export const METRICS_PERIODS = [7, 30, 90] as const;
export const DEFAULT_METRICS_DAYS = 30;

/** The windows GET /metrics/dora takes. */
export const DORA_WINDOW_OPTIONS = ["7d", "30d", "90d"] as const;
export type DoraWindowOption = (typeof DORA_WINDOW_OPTIONS)[number];
export const DEFAULT_DORA_WINDOW: DoraWindowOption = "30d";

/** The start of the period of `days` days that ends today (UTC): the `since` of GET /metrics/deploys. */
export function metricsSince(days: number, now = new Date()): string {
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * 24 * 3600 * 1000;
  return new Date(start).toISOString();
}

/** How many services the Deploys page's per-service tables show until "Show all" is pressed (the most active first). */
export const TOP_SERVICES = 20;
