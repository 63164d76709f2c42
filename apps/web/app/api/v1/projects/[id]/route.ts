import { deleteProject } from "@levelrail/services/project/environment";
import { getProject, toProjectView } from "@levelrail/services/project/list";
import { json, noContent, route } from "@/lib/api";

type Params = { id: string };

export const GET = route<Params>(async ({ ctx, params }) => json(toProjectView(await getProject(ctx, params.id))));

/** Removes the project with every environment in it (their services' containers, apps' networks) and its tier vars. */
export const DELETE = route<Params>(async ({ ctx, req, params }) => {
  await deleteProject({ ctx, projectId: params.id, dropData: new URL(req.url).searchParams.get("dropData") === "true" });
  return noContent();
});
