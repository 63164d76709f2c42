import { listHookRuns } from "@levelrail/services/hooks/list";
import { route, searchInput } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

/** Every hook run of the app's services, newest first, without output; `?service=`, `?limit=`, `?before=<startedAt>`. */
export const GET = route<{ envId: string; app: string }>(async ({ ctx, req, params }) =>
  conditionalJson(req, await listHookRuns({ ctx, envId: params.envId, app: params.app, input: searchInput(req, ["service", "limit", "before"]) })),
);
