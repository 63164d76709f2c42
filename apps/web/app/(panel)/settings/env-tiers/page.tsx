import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { getTierEnv } from "@levelrail/services/env/vars";
import { listEnvironments, listProjects } from "@levelrail/services/project/list";
import { TierEnvSummary } from "@/components/settings-text";
import { ProjectEnvSettings } from "@/components/tier-env-scopes";
import { currentEnvironment } from "@/lib/environment";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Env tiers · Levelrail" };

/** Settings › Env tiers: a project's env vars and one of its environments', starting at the current environment (the header's). */
export default async function EnvTiersPage() {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  const [projects, current] = await Promise.all([listProjects({ ctx }), currentEnvironment(ctx)]);
  qc.setQueryData(keys.projects(), projects);
  if (current) qc.setQueryData(keys.currentEnvironment(), current);
  const project = projects.find((p) => p.id === current?.project.id) ?? projects[0];
  if (project) {
    const environments = await listEnvironments({ ctx, projectId: project.id });
    qc.setQueryData(keys.environments(project.id), environments);
    const environment = environments.find((e) => e.id === current?.environment.id) ?? environments[0];
    await Promise.all([
      qc.prefetchQuery({ queryKey: keys.tierEnv("project", project.id), queryFn: () => getTierEnv({ ctx, tier: "project", id: project.id }) }),
      environment && qc.prefetchQuery({ queryKey: keys.tierEnv("environment", environment.id), queryFn: () => getTierEnv({ ctx, tier: "environment", id: environment.id }) }),
    ]);
  }
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Env tiers</h1>
      <TierEnvSummary />
      <ProjectEnvSettings />
    </HydrationBoundary>
  );
}
