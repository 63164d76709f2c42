import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import Link from "@/components/link";
import { listBackupTargets } from "@levelrail/services/config/backup-targets";
import { listRegistryCredentials } from "@levelrail/services/config/registry-credentials";
import { listDatabases } from "@levelrail/services/database/view";
import { configDrift, effectiveEnv } from "@levelrail/services/env/effective";
import { listSecrets } from "@levelrail/services/env/secrets";
import { listGitCredentials } from "@levelrail/services/git/credentials";
import { listHookRuns } from "@levelrail/services/hooks/list";
import { listReleases } from "@levelrail/services/release/deploy";
import { getService, getStatus } from "@levelrail/services/service/view";
import { DeployControls } from "@/components/deploy-controls";
// Parts of tabs other than Overview, and the charts: their own chunks (components/service-lazy.tsx).
import { BuildsCard, EnvironmentTab, HooksTab, ServiceLogs, ServiceMetrics, SettingsTab } from "@/components/service-lazy";
import { EnvironmentCrumbs } from "@/components/environment-crumbs";
import { PromoteCard } from "@/components/promote-card";
import { ReleaseHistory } from "@/components/release-history-card";
import { ServiceTabs } from "@/components/service-tabs";
import { StatusCard } from "@/components/status-card";
import { environmentOf } from "@/lib/environment";
import { orNotFound } from "@/lib/found";
import { HOOK_RUNS_PAGE, hookRunPaging } from "@/lib/hook-run-paging";
import { keys } from "@/lib/keys";
import { engineKindOrNull } from "@/lib/nodes";
import { deniedBecause } from "@/lib/permits";
import { appHref } from "@/lib/paths";
import { server } from "@/lib/server";
import { requireCtx } from "@/lib/session";

type Props = { params: Promise<{ envId: string; name: string }> };

export async function generateMetadata({ params }: Props) {
  const { name } = await params;
  return { title: `${name} · Levelrail` };
}

export default async function ServicePage({ params }: Props) {
  const { envId, name } = await params;
  const ctx = await requireCtx();
  const ref = { environmentId: envId, name };
  const { environment, project, siblings } = await environmentOf(ctx, envId);
  const service = await orNotFound(getService({ ctx, envId, name }));
  const qc = new QueryClient();
  qc.setQueryData(keys.service(ref), service);
  qc.setQueryData(keys.environment(envId), environment);
  qc.setQueryData(keys.environments(project.id), siblings);
  const input = { ctx, envId, name };
  const deployDenied = deniedBecause(ctx, environment, "service.deploy");
  const writeDenied = deniedBecause(ctx, environment, "service.write");
  const [engine] = await Promise.all([
    engineKindOrNull(),
    qc.prefetchQuery({ queryKey: keys.status(ref), queryFn: () => getStatus(input) }),
    qc.prefetchQuery({ queryKey: keys.deploys(ref), queryFn: () => listReleases(input) }),
    qc.prefetchQuery({ queryKey: keys.effectiveEnv(ref), queryFn: () => effectiveEnv(input) }),
    qc.prefetchQuery({ queryKey: keys.drift(ref), queryFn: () => configDrift(input) }),
    qc.prefetchQuery({ queryKey: keys.secrets(ref), queryFn: () => listSecrets(input) }),
    qc.prefetchQuery({ queryKey: keys.backupTargets(), queryFn: () => listBackupTargets({ ctx }) }),
    qc.prefetchQuery({ queryKey: keys.registryCredentials(), queryFn: () => listRegistryCredentials({ ctx }) }),
    qc.prefetchQuery({ queryKey: keys.databases(envId), queryFn: () => listDatabases({ ctx, envId }) }),
    qc.prefetchQuery({ queryKey: keys.gitCredentials(environment.orgId), queryFn: () => listGitCredentials({ ctx, orgId: environment.orgId }) }),
    qc.prefetchInfiniteQuery({
      queryKey: keys.serviceHookRuns(ref),
      queryFn: () => listHookRuns({ ctx, envId, app: service.app, input: { service: name, limit: HOOK_RUNS_PAGE } }),
      ...hookRunPaging,
    }),
  ]);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <EnvironmentCrumbs project={project} environment={environment}>
        <Link href={appHref({ environmentId: envId, name: service.app })}>{service.app}</Link> / {name}
      </EnvironmentCrumbs>
      <h1>{name}</h1>
      {/* The active tab is `?tab=` (none: Overview); see lib/service-tabs.ts. */}
      <ServiceTabs
        panels={{
          overview: (
            <>
              <div className="columns">
                <StatusCard service={ref} ingressPort={server().ingressHttpPort} />
                <DeployControls service={ref} denied={deployDenied} />
              </div>
              <ServiceMetrics service={ref} />
              <PromoteCard service={ref} projectId={project.id} denied={deployDenied} />
              <ReleaseHistory service={ref} recent={5} />
            </>
          ),
          deploys: <ReleaseHistory service={ref} />,
          builds: <BuildsCard service={ref} denied={deniedBecause(ctx, environment, "build.write")} />,
          logs: <ServiceLogs service={ref} />,
          environment: <EnvironmentTab service={ref} />,
          hooks: <HooksTab service={ref} />,
          settings: <SettingsTab service={ref} publicUrl={server().publicUrl} denied={writeDenied} engine={engine} />,
        }}
      />
    </HydrationBoundary>
  );
}
