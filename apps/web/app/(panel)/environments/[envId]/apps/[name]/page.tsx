import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { getApp, listApps } from "@levelrail/services/app/app";
import { listHookRuns } from "@levelrail/services/hooks/list";
import { listServices } from "@levelrail/services/service/view";
import { AppDetail } from "@/components/app-detail";
import { EnvironmentCrumbs } from "@/components/environment-crumbs";
import { environmentOf } from "@/lib/environment";
import { orNotFound } from "@/lib/found";
import { HOOK_RUNS_PAGE, hookRunPaging } from "@/lib/hook-run-paging";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

type Props = { params: Promise<{ envId: string; name: string }> };

export async function generateMetadata({ params }: Props) {
  const { name } = await params;
  return { title: `${name} · Levelrail` };
}

export default async function AppPage({ params }: Props) {
  const { envId, name } = await params;
  const ctx = await requireCtx();
  const { environment, project } = await environmentOf(ctx, envId);
  await orNotFound(getApp({ ctx, envId, name }));
  const ref = { environmentId: envId, name };
  const qc = new QueryClient();
  await Promise.all([
    qc.prefetchQuery({ queryKey: keys.apps(envId), queryFn: () => listApps({ ctx, envId }) }),
    qc.prefetchQuery({ queryKey: keys.appServices(ref), queryFn: () => listServices({ ctx, envId, app: name }) }),
    qc.prefetchInfiniteQuery({
      queryKey: keys.appHookRuns(ref, ""),
      queryFn: () => listHookRuns({ ctx, envId, app: name, input: { limit: HOOK_RUNS_PAGE } }),
      ...hookRunPaging,
    }),
  ]);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <EnvironmentCrumbs project={project} environment={environment}>
        {name}
      </EnvironmentCrumbs>
      <h1>{name}</h1>
      <AppDetail app={ref} />
    </HydrationBoundary>
  );
}
