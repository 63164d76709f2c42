import { effectiveEnv } from "@levelrail/services/env/effective";
import { json, route } from "@/lib/api";

/** The effective environment: `[{key, source, value, overrides}]`; secret and credential values are null. */
export const GET = route<{ envId: string; service: string }>(async ({ ctx, params }) => json(await effectiveEnv({ ctx, envId: params.envId, name: params.service })));
