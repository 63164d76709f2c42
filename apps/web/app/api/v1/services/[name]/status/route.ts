import { getStatus } from "@levelrail/services/service/view";
import { json, route } from "@/lib/api";

export const GET = route<{ name: string }>(async ({ ctx, params }) => json(await getStatus({ ctx, name: params.name })));
