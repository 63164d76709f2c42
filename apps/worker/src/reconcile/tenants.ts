import { isServiceId, parseKey } from "@levelrail/spec/keys";
import { SHARED_TENANT } from "./fair-queue";

/** Bounded by the keys there are; past it the cache starts over. */
const MAX_CACHED = 50_000;

/** The kinds of key that belong to one organization, and how to look each one's organization up. */
export interface TenantLookups {
  service?: (serviceId: string) => Promise<string | null>;
  database?: (databaseId: string) => Promise<string | null>;
  backup?: (backupId: string) => Promise<string | null>;
  build?: (buildId: string) => Promise<string | null>;
}

type OwnedKind = keyof TenantLookups;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A runner's `tenantOf`: the organization of a key's service, database or backup, looked up once
 * (none of them ever changes organization) and cached. Any other key (whole-fleet keys like
 * `images` or `networks`), a kind with no lookup, an id that is not one, a row that is gone or a
 * failed lookup (not cached) counts against the shared tenant.
 */
export function keyTenants(lookups: TenantLookups): (key: string) => string | Promise<string> {
  const cache = new Map<string, string>();
  return (text) => {
    const key = parseKey(text);
    if (!key || !(key.kind in lookups)) return SHARED_TENANT;
    const kind = key.kind as OwnedKind;
    const lookup = lookups[kind];
    if (!lookup || !("id" in key)) return SHARED_TENANT;
    const id = key.id;
    if (kind === "service" ? !isServiceId(id) : !UUID.test(id)) return SHARED_TENANT;
    const known = cache.get(text);
    if (known !== undefined) return known;
    return lookup(id).then(
      (org) => {
        if (org === null) return SHARED_TENANT;
        if (cache.size >= MAX_CACHED) cache.clear();
        cache.set(text, org);
        return org;
      },
      () => SHARED_TENANT,
    );
  };
}

/** `keyTenants` for a runner of service keys only (the application controller). */
export function serviceTenants(orgOf: (serviceId: string) => Promise<string | null>): (key: string) => string | Promise<string> {
  return keyTenants({ service: orgOf });
}
