import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { getProjectPreviews } from "@levelrail/services/preview/settings";
import { listEnvironments } from "@levelrail/services/project/list";
import { PreviewsCard } from "@/components/previews-card";
import { ScopeSelect } from "@/components/scope-select";
import { PreviewsIntro } from "@/components/settings-text";
import { keys } from "@/lib/keys";
import { deniedBecause } from "@/lib/permits";
import { type ScopeParams, settingsProject } from "@/lib/settings-scope";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Previews · Levelrail" };

/** Settings › Previews: a project's previews of pull and merge requests (`?project=`, else the current environment's). */
export default async function PreviewsPage({ searchParams }: { searchParams: ScopeParams }) {
  const ctx = await requireCtx();
  const { projects, project } = await settingsProject(ctx, searchParams);
  const qc = new QueryClient();
  const environments = project ? await listEnvironments({ ctx, projectId: project.id }) : [];
  if (project) await qc.prefetchQuery({ queryKey: keys.previews(project.id), queryFn: () => getProjectPreviews({ ctx, projectId: project.id }) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Previews</h1>
      {project ? (
        <>
          <ScopeSelect id="project-select" label="Project" param="project" value={project.id} options={projects.map(({ id, name }) => ({ id, name }))} />
          {/* The text reaches the client card as a prop: not in the page's JavaScript. */}
          <PreviewsCard project={project} environments={environments} intro={<PreviewsIntro />} approveDenied={deniedBecause(ctx, { orgId: project.orgId, projectId: project.id }, "service.deploy")} />
        </>
      ) : (
        <p className="muted">No projects yet.</p>
      )}
    </HydrationBoundary>
  );
}
