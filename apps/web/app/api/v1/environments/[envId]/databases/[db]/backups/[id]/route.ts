import { getBackup } from "@levelrail/services/database/view";
import { json, route } from "@/lib/api";

export const GET = route<{ envId: string; db: string; id: string }>(async ({ ctx, params }) => json(await getBackup({ ctx, envId: params.envId, name: params.db, id: params.id })));
