import { deleteEnvironment } from "@levelrail/services/project/environment";
import { getEnvironment } from "@levelrail/services/project/list";
import { json, noContent, route } from "@/lib/api";

type Params = { envId: string };

export const GET = route<Params>(async ({ ctx, params }) => json(await getEnvironment({ ctx, envId: params.envId })));

/** Removes everything in it: services (their containers), apps (their networks), databases (their data only with `?dropData=true`), tier vars, the record. */
export const DELETE = route<Params>(async ({ ctx, req, params }) => {
  await deleteEnvironment({ ctx, envId: params.envId, dropData: new URL(req.url).searchParams.get("dropData") === "true" });
  return noContent();
});
