import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import Link from "next/link";
import { notFound } from "next/navigation";
import { listBackupTargets } from "@levelrail/services/config/backup-targets";
import { listRegistryCredentials } from "@levelrail/services/config/registry-credentials";
import { configDrift, effectiveEnv } from "@levelrail/services/env/effective";
import { listSecrets } from "@levelrail/services/env/secrets";
import { listHookRuns } from "@levelrail/services/hooks/list";
import { listReleases } from "@levelrail/services/release/deploy";
import { getService, getStatus } from "@levelrail/services/service/view";
import { LevelrailError } from "@levelrail/spec/errors";
import type { ServiceView } from "@levelrail/spec/service";
import { Attachments } from "@/components/attachments";
import { DeployControls } from "@/components/deploy-controls";
import { EffectiveEnv } from "@/components/effective-env";
import { ServiceHookRuns } from "@/components/hook-runs";
import { ReleaseHistory } from "@/components/release-history";
import { SecretsCard } from "@/components/secrets-card";
import { ServiceConfig } from "@/components/service-config";
import { ServiceEnv } from "@/components/service-env";
import { StatusCard } from "@/components/status-card";
import { HOOK_RUNS_PAGE, hookRunPaging, keys } from "@/lib/keys";
import { server } from "@/lib/server";
import { requireCtx } from "@/lib/session";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props) {
  const { name } = await params;
  return { title: `${name} · Levelrail` };
}

export default async function ServicePage({ params }: Props) {
  const { name } = await params;
  const ctx = await requireCtx();
  const qc = new QueryClient();
  let service: ServiceView;
  try {
    service = await getService({ ctx, name });
    qc.setQueryData(keys.service(name), service);
  } catch (err) {
    if (err instanceof LevelrailError && err.code === "not_found") notFound();
    throw err;
  }
  await Promise.all([
    qc.prefetchQuery({ queryKey: keys.status(name), queryFn: () => getStatus({ ctx, name }) }),
    qc.prefetchQuery({ queryKey: keys.deploys(name), queryFn: () => listReleases({ ctx, name }) }),
    qc.prefetchQuery({ queryKey: keys.effectiveEnv(name), queryFn: () => effectiveEnv({ ctx, name }) }),
    qc.prefetchQuery({ queryKey: keys.drift(name), queryFn: () => configDrift({ ctx, name }) }),
    qc.prefetchQuery({ queryKey: keys.secrets(name), queryFn: () => listSecrets({ ctx, name }) }),
    qc.prefetchQuery({ queryKey: keys.backupTargets(), queryFn: () => listBackupTargets({ ctx }) }),
    qc.prefetchQuery({ queryKey: keys.registryCredentials(), queryFn: () => listRegistryCredentials({ ctx }) }),
    qc.prefetchInfiniteQuery({
      queryKey: keys.serviceHookRuns(name),
      queryFn: () => listHookRuns({ ctx, app: service.app, input: { service: name, limit: HOOK_RUNS_PAGE } }),
      ...hookRunPaging,
    }),
  ]);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <p className="crumbs">
        <Link href="/">Apps</Link> / <Link href={`/apps/${encodeURIComponent(service.app)}`}>{service.app}</Link> / {name}
      </p>
      <h1>{name}</h1>
      <div className="columns">
        <StatusCard name={name} ingressPort={server().ingressHttpPort} />
        <DeployControls name={name} />
      </div>
      <ServiceConfig name={name} />
      <ServiceEnv name={name} />
      <SecretsCard name={name} />
      <Attachments name={name} />
      <EffectiveEnv name={name} />
      <ReleaseHistory name={name} />
      <ServiceHookRuns name={name} />
    </HydrationBoundary>
  );
}
