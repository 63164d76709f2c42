import { configDrift } from "@levelrail/services/env/effective";
import { json, route } from "@/lib/api";

/** What changed since the last deploy: `{deployed, changedKeys, changedFields, problem}` (key names only). */
export const GET = route<{ name: string }>(async ({ ctx, params }) => json(await configDrift({ ctx, name: params.name })));
