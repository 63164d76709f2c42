import { configDrift } from "@levelrail/services/env/effective";
import { json, route } from "@/lib/api";

/** What changed since the last deploy: `{deployed, changedKeys, changedFields, problem}` (key names only). */
export const GET = route<{ envId: string; service: string }>(async ({ ctx, params }) => json(await configDrift({ ctx, envId: params.envId, name: params.service })));
