import { getQuotas } from "@levelrail/services/org/quota";
import { json, route } from "@/lib/api";

type Params = { id: string };

/** The organization's quotas: `{quotas: {apps: {limit, used, source}, …}}` (set with `levelrail quota set`). */
export const GET = route<Params>(async ({ ctx, params }) => json(await getQuotas({ ctx, orgId: params.id })));
