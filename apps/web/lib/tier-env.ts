import "server-only";
import type { EnvScope } from "@levelrail/db/schema/config";
import { getTierEnv, putTierEnv } from "@levelrail/services/env/vars";
import { json, route } from "./api";

/** GET and PUT of one env tier's whole set (`{"vars": {...}}`); the three tiers' routes differ only in the tier. */
export function tierEnvRoutes(tier: EnvScope) {
  return {
    GET: route<{ id: string }>(async ({ ctx, params }) => json(await getTierEnv({ ctx, tier, id: params.id }))),
    PUT: route<{ id: string }>(async ({ ctx, params, body }) => json(await putTierEnv({ ctx, tier, id: params.id, input: await body() }))),
  };
}
