import { listDeliveries } from "@levelrail/services/notifications/deliveries";
import { json, route, searchInput } from "@/lib/api";

/** The channel's delivery log, newest first (`?limit=`). */
export const GET = route<{ id: string }>(async ({ ctx, params, req }) => json(await listDeliveries({ ctx, id: params.id, input: searchInput(req, ["limit"]) })));
