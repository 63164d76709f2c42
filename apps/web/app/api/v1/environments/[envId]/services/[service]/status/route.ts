import { getStatus } from "@levelrail/services/service/view";
import { route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

export const GET = route<{ envId: string; service: string }>(async ({ ctx, req, params }) => conditionalJson(req, await getStatus({ ctx, envId: params.envId, name: params.service })));
