import { getStatus } from "@levelrail/services/service/view";
import { route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

export const GET = route<{ name: string }>(async ({ ctx, req, params }) => conditionalJson(req, await getStatus({ ctx, name: params.name })));
