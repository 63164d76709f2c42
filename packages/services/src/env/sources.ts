import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { backupTarget, envVar, type EnvScope, registryCredential, secret } from "@levelrail/db/schema/config";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { environment } from "@levelrail/db/schema/orgs";
import { service } from "@levelrail/db/schema/services";
import type { Keyring } from "@levelrail/secrets";
import { postgresUrl } from "@levelrail/spec/database";
import { type EnvStores, type EnvTarget, type TierEnvStore, UnresolvableError } from "@levelrail/spec/env";

/** What sealing and fingerprinting need; built once per process from the master key. */
export interface SecretsKit {
  keyring: Keyring;
  fingerprintKey: Buffer;
}

export function tierStore(db: Db, scope: EnvScope): TierEnvStore {
  return {
    async envOf(scopeId) {
      const rows = await db.select({ key: envVar.key, value: envVar.value }).from(envVar).where(and(eq(envVar.scope, scope), eq(envVar.scopeId, scopeId)));
      return Object.fromEntries(rows.map((r) => [r.key, r.value]));
    },
  };
}

/** Every store env resolution can use, on PostgreSQL. */
export function pgEnvStores(db: Db, keyring: Keyring): EnvStores & { registryAuth: RegistryAuthStore["registryAuth"] } {
  return {
    organizationEnv: tierStore(db, "organization"),
    projectEnv: tierStore(db, "project"),
    environmentEnv: tierStore(db, "environment"),
    secrets: {
      async secretsOf(serviceId) {
        const rows = await db.select({ key: secret.key, sealed: secret.sealed }).from(secret).where(eq(secret.serviceId, serviceId));
        const out: Record<string, string> = {};
        for (const r of rows) {
          try {
            out[r.key] = keyring.open(r.sealed);
          } catch {
            throw new UnresolvableError(`secret ${r.key} cannot be decrypted with the configured master key`);
          }
        }
        return out;
      },
    },
    storage: {
      async storageTarget(orgId, id) {
        const [t] = await db.select().from(backupTarget).where(and(eq(backupTarget.id, id), eq(backupTarget.orgId, orgId)));
        if (!t) return null;
        let secretKey: string;
        try {
          secretKey = keyring.open(t.secretKeySealed);
        } catch {
          throw new UnresolvableError(`the secret key of storage target ${t.name} cannot be decrypted with the configured master key`);
        }
        return { endpoint: t.endpoint, bucket: t.bucket, region: t.region, accessKey: t.accessKey, secretKey };
      },
    },
    databases: {
      // The database of that name in the service's own environment (and organization): never another's.
      async databaseUrl(target, name) {
        const [d] = await db
          .select({ name: managedDatabase.name, username: managedDatabase.username, passwordSealed: managedDatabase.passwordSealed })
          .from(managedDatabase)
          .where(and(eq(managedDatabase.environmentId, target.environmentId), eq(managedDatabase.orgId, target.orgId), eq(managedDatabase.name, name)));
        if (!d) return null;
        let password: string;
        try {
          password = keyring.open(d.passwordSealed);
        } catch {
          throw new UnresolvableError(`the password of database ${d.name} cannot be decrypted with the configured master key`);
        }
        // Its name is its alias on every app network it is attached to.
        return postgresUrl({ user: d.username, password, database: d.name }, d.name);
      },
    },
    async registryAuth(orgId, id) {
      const [c] = await db.select().from(registryCredential).where(and(eq(registryCredential.id, id), eq(registryCredential.orgId, orgId)));
      if (!c) return null;
      try {
        return { serveraddress: c.server, username: c.username, password: keyring.open(c.passwordSealed) };
      } catch {
        throw new UnresolvableError(`the password of registry credential ${c.name} cannot be decrypted with the configured master key`);
      }
    },
  };
}

export interface RegistryAuthStore {
  registryAuth(orgId: string, id: string): Promise<{ serveraddress: string; username: string; password: string } | null>;
}

/**
 * The service's secret keys, as a column of a query that selects from `service` (one round trip for
 * whoever reads the service anyway); null when it has none.
 */
export const secretKeysColumn = () => sql<string[] | null>`(select array_agg(${secret.key}) from ${secret} where ${secret.serviceId} = ${service.id})`;

/** The env target of a service row, its environment's project and its secret keys (in any order). */
export function envTargetFrom(s: Pick<typeof service.$inferSelect, EnvTargetColumn>, projectId: string, secretKeys: string[] | null): EnvTarget {
  return {
    serviceId: s.id,
    orgId: s.orgId,
    projectId,
    environmentId: s.environmentId,
    env: s.env,
    secretKeys: [...(secretKeys ?? [])].sort(),
    storageTargetId: s.storageTargetId,
    databaseEnv: s.databaseEnv,
  };
}

/** The service columns env resolution reads (and only those: a later column does not change it). */
type EnvTargetColumn = "id" | "orgId" | "environmentId" | "env" | "storageTargetId" | "databaseEnv";
const envTargetColumns = {
  id: service.id,
  orgId: service.orgId,
  environmentId: service.environmentId,
  env: service.env,
  storageTargetId: service.storageTargetId,
  databaseEnv: service.databaseEnv,
} satisfies Record<EnvTargetColumn, unknown>;

/** Everything env resolution needs to know about one service. */
export async function envTargetOf(db: Db, serviceId: string): Promise<EnvTarget | null> {
  const [row] = await db
    .select({ s: envTargetColumns, projectId: environment.projectId, secretKeys: secretKeysColumn() })
    .from(service)
    .innerJoin(environment, eq(environment.id, service.environmentId))
    .where(eq(service.id, serviceId));
  return row ? envTargetFrom(row.s, row.projectId, row.secretKeys) : null;
}
