import { listHookRuns } from "@levelrail/services/hooks/list";
import { getService } from "@levelrail/services/service/view";
import { json, route, searchInput } from "@/lib/api";

/** The service's hook runs, newest first, without output; `?limit=`, `?before=<startedAt>`. */
export const GET = route<{ name: string }>(async ({ ctx, req, params }) => {
  const service = await getService({ ctx, name: params.name });
  return json(await listHookRuns({ ctx, app: service.app, input: { ...searchInput(req, ["limit", "before"]), service: service.name } }));
});
