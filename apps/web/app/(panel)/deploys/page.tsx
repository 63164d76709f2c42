import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { deployMetrics } from "@levelrail/services/metrics/deploys";
import { doraMetrics } from "@levelrail/services/metrics/dora";
import { DeployMetricsView } from "@/components/deploy-metrics";
import { DoraView } from "@/components/dora-figures";
import { keys } from "@/lib/keys";
import { DEFAULT_DORA_WINDOW, DEFAULT_METRICS_DAYS, TOP_SERVICES, metricsSince } from "@/lib/metric-windows";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Deploys · Levelrail" };

export default async function DeploysPage() {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  await Promise.all([
    // What the client's hooks ask (lib/metrics-queries.ts): no per-deploy samples, the most active services.
    qc.prefetchQuery({
      queryKey: keys.deployMetrics("", DEFAULT_METRICS_DAYS, TOP_SERVICES),
      queryFn: () => deployMetrics({ ctx, input: { since: metricsSince(DEFAULT_METRICS_DAYS), samples: "false", top: TOP_SERVICES } }),
    }),
    qc.prefetchQuery({ queryKey: keys.dora(DEFAULT_DORA_WINDOW, TOP_SERVICES), queryFn: () => doraMetrics({ ctx, input: { window: DEFAULT_DORA_WINDOW, top: TOP_SERVICES } }) }),
  ]);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Deploys</h1>
      <DoraView />
      <h2 className="section">Deploys per day</h2>
      <p className="muted">One sample per real cutover: a deploy, restart or rollback that replaced a container, or failed trying. Days are UTC.</p>
      <DeployMetricsView />
    </HydrationBoundary>
  );
}
