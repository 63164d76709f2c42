import { serviceMetrics } from "@levelrail/services/metrics/containers";
import { route, searchInput } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

/** CPU, memory and network samples of the service's active container; `?since=<ISO time>` (default: an hour ago). */
export const GET = route<{ envId: string; service: string }>(async ({ ctx, req, params }) =>
  conditionalJson(req, await serviceMetrics({ ctx, envId: params.envId, name: params.service, input: searchInput(req, ["since"]) })),
);
