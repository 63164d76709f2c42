import { getHookRun } from "@levelrail/services/hooks/list";
import { json, route } from "@/lib/api";

/** One hook run with its combined output. */
export const GET = route<{ id: string }>(async ({ ctx, params }) => json(await getHookRun({ ctx, id: params.id })));
