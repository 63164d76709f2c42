import { createHmac } from "node:crypto";
import { S3_ACCESS_KEY, S3_BUCKET, S3_ENDPOINT, S3_REGION, S3_SECRET_KEY } from "./storage";

/** Where an effective env value came from, lowest precedence first. */
export const ENV_SOURCES = ["organization", "project", "environment", "service", "secret", "storage", "database"] as const;
export type EnvSource = (typeof ENV_SOURCES)[number];
/** Sources whose values are never shown (database URLs carry their password). */
export const SECRET_SOURCES: readonly EnvSource[] = ["secret", "database"];
/** Storage keys that are credentials; the endpoint, bucket and region are shown. */
export const SECRET_STORAGE_KEYS: readonly string[] = [S3_ACCESS_KEY, S3_SECRET_KEY];

export interface EnvEntry {
  key: string;
  value: string;
  source: EnvSource;
  /** Lower tiers that also define this key, lowest first. */
  overrides: EnvSource[];
  /** True when the value must never be shown (secrets, credentials). */
  sensitive: boolean;
}

/** What a service declares: every id a tier or attachment is looked up by. */
export interface EnvTarget {
  serviceId: string;
  orgId: string;
  projectId: string;
  environmentId: string;
  env: Record<string, string>;
  /** Keys of the service's secrets (declared by existing; values resolved by the store). */
  secretKeys: string[];
  storageTargetId: string | null;
  databaseEnv: Record<string, { from: string }>;
}

/** One tier's vars by the id of its scope. */
export interface TierEnvStore {
  envOf(scopeId: string): Promise<Record<string, string>>;
}
export interface SecretStore {
  /** Plaintext of every secret of the service; throws UnresolvableError naming a key it cannot open. */
  secretsOf(serviceId: string): Promise<Record<string, string>>;
}
export interface StorageTarget {
  endpoint: string;
  bucket: string;
  region: string;
  accessKey: string;
  secretKey: string;
}
export interface StorageStore {
  /** The target of the service's organization, or null if there is none with that id. */
  storageTarget(orgId: string, id: string): Promise<StorageTarget | null>;
}
export interface DatabaseStore {
  /** Connection URL of the managed database of that name in the service's environment, or null. */
  databaseUrl(target: { orgId: string; environmentId: string }, name: string): Promise<string | null>;
}

/**
 * The stores env resolution may use. The organization, project and
 * environment tiers are skipped when absent; a declared secret, storage
 * target or database attachment with no store fails loudly.
 */
export interface EnvStores {
  organizationEnv?: TierEnvStore | undefined;
  projectEnv?: TierEnvStore | undefined;
  environmentEnv?: TierEnvStore | undefined;
  secrets?: SecretStore | undefined;
  storage?: StorageStore | undefined;
  databases?: DatabaseStore | undefined;
}

/** A value the service declared but the product cannot resolve: the deploy fails naming it. */
export class UnresolvableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnresolvableError";
  }
}

/** Storage attachment → env, built from the same named constants `STORAGE_ENV_KEYS` lists. */
export function storageEnv(t: StorageTarget): Record<string, string> {
  return {
    [S3_ENDPOINT]: t.endpoint,
    [S3_BUCKET]: t.bucket,
    [S3_REGION]: t.region,
    [S3_ACCESS_KEY]: t.accessKey,
    [S3_SECRET_KEY]: t.secretKey,
  };
}

/** Resolves every tier, lowest to highest precedence. */
export async function resolveEnv(target: EnvTarget, stores: EnvStores): Promise<EnvEntry[]> {
  const tiers: [EnvSource, Record<string, string>][] = [];
  if (stores.organizationEnv) tiers.push(["organization", await stores.organizationEnv.envOf(target.orgId)]);
  if (stores.projectEnv) tiers.push(["project", await stores.projectEnv.envOf(target.projectId)]);
  if (stores.environmentEnv) tiers.push(["environment", await stores.environmentEnv.envOf(target.environmentId)]);
  tiers.push(["service", target.env]);

  if (target.secretKeys.length > 0) {
    if (!stores.secrets) throw new UnresolvableError(`secrets ${target.secretKeys.join(", ")} are declared but no secret store is configured`);
    const values = await stores.secrets.secretsOf(target.serviceId);
    const missing = target.secretKeys.filter((k) => !(k in values));
    if (missing.length) throw new UnresolvableError(`secret ${missing.join(", ")} could not be resolved`);
    tiers.push(["secret", values]);
  }
  if (target.storageTargetId !== null) {
    if (!stores.storage) throw new UnresolvableError(`storage target ${target.storageTargetId} is attached but no storage store is configured`);
    const t = await stores.storage.storageTarget(target.orgId, target.storageTargetId);
    if (!t) throw new UnresolvableError(`storage target ${target.storageTargetId} does not exist`);
    tiers.push(["storage", storageEnv(t)]);
  }
  const dbKeys = Object.entries(target.databaseEnv);
  if (dbKeys.length > 0) {
    if (!stores.databases) {
      throw new UnresolvableError(`database attachment ${dbKeys.map(([k, v]) => `${k} (from ${v.from})`).join(", ")} cannot be resolved: no database store is configured`);
    }
    const vars: Record<string, string> = {};
    for (const [key, { from }] of dbKeys) {
      const url = await stores.databases.databaseUrl(target, from);
      if (url === null) throw new UnresolvableError(`database ${from} (for ${key}) does not exist in this environment`);
      vars[key] = url;
    }
    tiers.push(["database", vars]);
  }
  return mergeTiers(tiers);
}

/** Later tiers win; each entry remembers which lower tiers it overrides. */
export function mergeTiers(tiers: [EnvSource, Record<string, string>][]): EnvEntry[] {
  const out = new Map<string, EnvEntry>();
  for (const [source, vars] of tiers) {
    for (const [key, value] of Object.entries(vars)) {
      const prev = out.get(key);
      out.set(key, {
        key,
        value,
        source,
        overrides: prev ? [...prev.overrides, prev.source] : [],
        sensitive: SECRET_SOURCES.includes(source) || (source === "storage" && SECRET_STORAGE_KEYS.includes(key)),
      });
    }
  }
  return [...out.values()].sort((a, b) => a.key.localeCompare(b.key));
}

export const toEnvMap = (entries: EnvEntry[]): Record<string, string> =>
  Object.fromEntries(entries.map((e) => [e.key, e.value]));

/** Per-key HMAC of each value: compares configurations without keeping a value. */
export function envFingerprints(key: Buffer, entries: EnvEntry[]): Record<string, string> {
  return Object.fromEntries(
    entries.map((e) => [e.key, createHmac("sha256", key).update(`${e.key}\0${e.value}`).digest("hex").slice(0, 32)]),
  );
}

/** One HMAC over a whole configuration (any JSON-able spec plus the env fingerprints). */
export function configFingerprint(key: Buffer, spec: unknown, envPrints: Record<string, string>): string {
  const canonical = canonicalJson({ spec, env: envPrints });
  return createHmac("sha256", key).update(canonical).digest("hex");
}

/** Keys added, removed or changed between two fingerprint sets (names only). */
export function changedKeys(before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => before[k] !== after[k]).sort();
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
