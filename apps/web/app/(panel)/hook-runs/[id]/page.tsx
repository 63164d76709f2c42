import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { notFound } from "next/navigation";
import { getHookRun } from "@levelrail/services/hooks/list";
import { LevelrailError } from "@levelrail/spec/errors";
import { HookRunDetail } from "@/components/hook-run-detail";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

type Props = { params: Promise<{ id: string }> };

export const metadata = { title: "Hook run · Levelrail" };

export default async function HookRunPage({ params }: Props) {
  const { id } = await params;
  const ctx = await requireCtx();
  const qc = new QueryClient();
  try {
    qc.setQueryData(keys.hookRun(id), await getHookRun({ ctx, id }));
  } catch (err) {
    if (err instanceof LevelrailError && err.code === "not_found") notFound();
    throw err;
  }
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <HookRunDetail id={id} />
    </HydrationBoundary>
  );
}
