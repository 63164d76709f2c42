import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listBackupTargets } from "@levelrail/services/config/backup-targets";
import { listDatabases } from "@levelrail/services/database/view";
import { getTierEnv } from "@levelrail/services/env/vars";
import { DEFAULT_POSTGRES_VERSION } from "@levelrail/spec/lists";
import { DatabasesSection } from "@/components/databases-section";
import { EnvironmentCrumbs } from "@/components/environment-crumbs";
import { DeleteEnvironment } from "@/components/environment-actions";
import { CloneEnvironmentCard } from "@/components/environment-cards";
import { EnvironmentFleet } from "@/components/environment-fleet";
import { TierEnvEditor } from "@/components/tier-env-settings";
import { environmentOf, prefetchFleet } from "@/lib/environment";
import { keys } from "@/lib/keys";
import { deniedBecause } from "@/lib/permits";
import { requireCtx } from "@/lib/session";

type Props = { params: Promise<{ envId: string }> };

export const metadata = { title: "Environment · Levelrail" };

/** One environment: its env tier, its apps and services, its databases, and clone and delete. */
export default async function EnvironmentPage({ params }: Props) {
  const { envId } = await params;
  const ctx = await requireCtx();
  const { environment, project, siblings } = await environmentOf(ctx, envId);
  const qc = new QueryClient();
  qc.setQueryData(keys.environment(envId), environment);
  qc.setQueryData(keys.environments(project.id), siblings);
  await Promise.all([
    prefetchFleet(qc, ctx, envId),
    qc.prefetchQuery({ queryKey: keys.tierEnv("environment", envId), queryFn: () => getTierEnv({ ctx, tier: "environment", id: envId }) }),
    qc.prefetchQuery({ queryKey: keys.databases(envId), queryFn: () => listDatabases({ ctx, envId }) }),
    qc.prefetchQuery({ queryKey: keys.backupTargets(), queryFn: () => listBackupTargets({ ctx }) }),
  ]);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <EnvironmentCrumbs project={project} environment={environment} />
      <h1>{environment.name}</h1>
      <div className="columns">
        <CloneEnvironmentCard environment={environment} denied={deniedBecause(ctx, environment, "environment.create")} />
        <DeleteEnvironment environment={environment} denied={deniedBecause(ctx, environment, "environment.delete")} />
      </div>
      <TierEnvEditor
        tier="environment"
        id={envId}
        title="Environment env"
        description={`Every service of ${project.name} / ${environment.name} gets these; they override the project's and the organization's.`}
      />
      <h2>Apps and services</h2>
      <EnvironmentFleet envId={envId} />
      <DatabasesSection envId={envId} defaultVersion={DEFAULT_POSTGRES_VERSION} />
    </HydrationBoundary>
  );
}
