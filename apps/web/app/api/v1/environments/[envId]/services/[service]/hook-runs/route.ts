import { listHookRuns } from "@levelrail/services/hooks/list";
import { getService } from "@levelrail/services/service/view";
import { route, searchInput } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

/** The service's hook runs, newest first, without output; `?limit=`, `?before=<startedAt>`. */
export const GET = route<{ envId: string; service: string }>(async ({ ctx, req, params }) => {
  const service = await getService({ ctx, envId: params.envId, name: params.service });
  return conditionalJson(req, await listHookRuns({ ctx, envId: params.envId, app: service.app, input: { ...searchInput(req, ["limit", "before"]), service: service.name } }));
});
