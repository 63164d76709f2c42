import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getApp, listApps } from "@levelrail/services/app/app";
import { listHookRuns } from "@levelrail/services/hooks/list";
import { listServices } from "@levelrail/services/service/view";
import { LevelrailError } from "@levelrail/spec/errors";
import { AppDetail } from "@/components/app-detail";
import { HOOK_RUNS_PAGE, hookRunPaging, keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props) {
  const { name } = await params;
  return { title: `${name} · Levelrail` };
}

export default async function AppPage({ params }: Props) {
  const { name } = await params;
  const ctx = await requireCtx();
  try {
    await getApp({ ctx, name });
  } catch (err) {
    if (err instanceof LevelrailError && err.code === "not_found") notFound();
    throw err;
  }
  const qc = new QueryClient();
  await Promise.all([
    qc.prefetchQuery({ queryKey: keys.apps(), queryFn: () => listApps({ ctx }) }),
    qc.prefetchQuery({ queryKey: keys.appServices(name), queryFn: () => listServices({ ctx, app: name }) }),
    qc.prefetchInfiniteQuery({
      queryKey: keys.appHookRuns(name, ""),
      queryFn: () => listHookRuns({ ctx, app: name, input: { limit: HOOK_RUNS_PAGE } }),
      ...hookRunPaging,
    }),
  ]);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <p className="crumbs">
        <Link href="/">Apps</Link> / {name}
      </p>
      <h1>{name}</h1>
      <AppDetail name={name} />
    </HydrationBoundary>
  );
}
