import { getHookRun } from "@levelrail/services/hooks/list";
import { route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

/** One hook run with its combined output. */
export const GET = route<{ id: string }>(async ({ ctx, req, params }) => conditionalJson(req, await getHookRun({ ctx, id: params.id })));
