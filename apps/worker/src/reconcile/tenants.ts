import { isServiceId, parseKey } from "@levelrail/spec/keys";
import { SHARED_TENANT } from "./fair-queue";

/** Bounded by the services there are; past it the cache starts over. */
const MAX_CACHED = 50_000;

/**
 * A runner's `tenantOf` for service keys: the service's organization, looked up once (a service never
 * changes organization) and cached. Any other key, a service that is gone, or a failed lookup (not
 * cached) counts against the shared tenant.
 */
export function serviceTenants(orgOf: (serviceId: string) => Promise<string | null>): (key: string) => string | Promise<string> {
  const cache = new Map<string, string>();
  return (text) => {
    const key = parseKey(text);
    if (key?.kind !== "service" || !isServiceId(key.id)) return SHARED_TENANT;
    const id = key.id;
    const known = cache.get(id);
    if (known !== undefined) return known;
    return orgOf(id).then(
      (org) => {
        if (org === null) return SHARED_TENANT;
        if (cache.size >= MAX_CACHED) cache.clear();
        cache.set(id, org);
        return org;
      },
      () => SHARED_TENANT,
    );
  };
}
