import { listHookRuns } from "@levelrail/services/hooks/list";
import { json, route, searchInput } from "@/lib/api";

/** Every hook run of the app's services, newest first, without output; `?service=`, `?limit=`, `?before=<startedAt>`. */
export const GET = route<{ name: string }>(async ({ ctx, req, params }) =>
  json(await listHookRuns({ ctx, app: params.name, input: searchInput(req, ["service", "limit", "before"]) })),
);
