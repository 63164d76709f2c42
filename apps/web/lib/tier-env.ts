import "server-only";
import type { EnvScope } from "@levelrail/db/schema/config";
import { getTierEnv, putTierEnv } from "@levelrail/services/env/vars";
import { json, route } from "./api";

/** GET and PUT of one env tier's whole set (`{"vars": {...}}`); the three tiers' routes differ only in the tier. */
export function tierEnvRoutes<K extends string>(tier: EnvScope, param: K) {
  type Params = Record<K, string>;
  return {
    GET: route<Params>(async ({ ctx, params }) => json(await getTierEnv({ ctx, tier, id: params[param] }))),
    PUT: route<Params>(async ({ ctx, params, body }) => json(await putTierEnv({ ctx, tier, id: params[param], input: await body() }))),
  };
}
