import { createHash } from "node:crypto";
import { and, asc, eq, inArray } from "drizzle-orm";
import { backupTarget, envVar, registryCredential, secret } from "@levelrail/db/schema/config";
import { gitCredential, gitSource } from "@levelrail/db/schema/git";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { project } from "@levelrail/db/schema/orgs";
import { app, service, serviceStatus } from "@levelrail/db/schema/services";
import { type EnvironmentSpec, type SpecBody, type SpecDatabase, type SpecService, SPEC_API_VERSION, SPEC_KIND } from "@levelrail/spec/env-spec";
import { resourcesOf } from "@levelrail/spec/service";
import type { Ctx } from "../context";
import { gitFieldsOf } from "../git/source";
import { findEnvironment } from "../project/list";

type EnvRow = Awaited<ReturnType<typeof findEnvironment>>;

/** What an environment declares now, with what the spec cannot say: which secrets have a value, and what runs. */
export interface EnvironmentState {
  env: EnvRow;
  project: string;
  body: SpecBody;
  /** Changes whenever anything the spec covers changes (a secret's value included). */
  resourceVersion: string;
  /** The image each running service's live container runs. */
  running: Record<string, string>;
  /** Organization-level names and their ids (a name may be used by more than one). */
  targets: { id: string; name: string }[];
  credentials: { id: string; name: string }[];
  gitCredentials: { id: string; name: string }[];
}

/** Keys sorted, so a JSON text of a value is one text however it was built. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

const sortedRecord = <T>(r: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Reads the environment as a spec body, inside whatever `ctx.db` is (apply passes its transaction). */
export async function readEnvironment(ctx: Ctx, env: EnvRow): Promise<EnvironmentState> {
  const db = ctx.db;
  const [p] = await db.select({ name: project.name }).from(project).where(and(eq(project.id, env.projectId), eq(project.orgId, env.orgId)));
  const vars = await db
    .select({ key: envVar.key, value: envVar.value })
    .from(envVar)
    .where(and(eq(envVar.scope, "environment"), eq(envVar.scopeId, env.id), eq(envVar.orgId, env.orgId)))
    .orderBy(asc(envVar.key));
  const apps = await db.select({ id: app.id, name: app.name }).from(app).where(and(eq(app.environmentId, env.id), eq(app.orgId, env.orgId))).orderBy(asc(app.name));
  const rows = await db.select().from(service).where(and(eq(service.environmentId, env.id), eq(service.orgId, env.orgId))).orderBy(asc(service.name));
  const dbs = await db
    .select()
    .from(managedDatabase)
    .where(and(eq(managedDatabase.environmentId, env.id), eq(managedDatabase.orgId, env.orgId)))
    .orderBy(asc(managedDatabase.name));
  const ids = rows.map((r) => r.id);
  const secrets = ids.length
    ? await db.select({ serviceId: secret.serviceId, key: secret.key, updatedAt: secret.updatedAt }).from(secret).where(and(inArray(secret.serviceId, ids), eq(secret.orgId, env.orgId))).orderBy(asc(secret.key))
    : [];
  const statuses = ids.length ? await db.select({ serviceId: serviceStatus.serviceId, image: serviceStatus.image, phase: serviceStatus.phase, active: serviceStatus.activeContainer }).from(serviceStatus).where(inArray(serviceStatus.serviceId, ids)) : [];
  const targets = await db.select({ id: backupTarget.id, name: backupTarget.name }).from(backupTarget).where(eq(backupTarget.orgId, env.orgId));
  const credentials = await db.select({ id: registryCredential.id, name: registryCredential.name }).from(registryCredential).where(eq(registryCredential.orgId, env.orgId));
  const gitCredentials = await db.select({ id: gitCredential.id, name: gitCredential.name }).from(gitCredential).where(eq(gitCredential.orgId, env.orgId));
  const sources = ids.length ? await db.select().from(gitSource).where(and(inArray(gitSource.serviceId, ids), eq(gitSource.orgId, env.orgId))) : [];
  const nameOf = (list: { id: string; name: string }[], id: string | null) => (id === null ? null : (list.find((x) => x.id === id)?.name ?? null));
  const appName = new Map(apps.map((a) => [a.id, a.name]));

  const sourceOf = (s: (typeof rows)[number]): Pick<SpecService, "image" | "source"> => {
    const g = sources.find((x) => x.serviceId === s.id);
    // A git-sourced service's image is whatever its last build made: not declared, so not exported.
    if (!g) return { image: s.image };
    const { credentialId: _id, apiCredentialId: _apiId, ...fields } = gitFieldsOf(g);
    return { source: { git: { ...fields, credential: nameOf(gitCredentials, g.credentialId), apiCredential: nameOf(gitCredentials, g.apiCredentialId) } } };
  };
  const services: SpecService[] = rows.map((s) => ({
    name: s.name,
    app: appName.get(s.appId) ?? "",
    ...sourceOf(s),
    port: s.port,
    healthPath: s.healthPath,
    readyBudgetSeconds: s.readyBudgetSeconds,
    strategy: s.strategy,
    env: sortedRecord(s.env),
    databaseEnv: sortedRecord(s.databaseEnv),
    storageTarget: nameOf(targets, s.storageTargetId),
    registryCredential: nameOf(credentials, s.registryCredentialId),
    hooks: s.hooks,
    domains: s.domains,
    resources: resourcesOf(s.resources),
    replicas: s.replicas,
    placement: sortedRecord(s.placement),
    secrets: secrets.filter((x) => x.serviceId === s.id).map((x) => x.key),
  }));
  const databases: SpecDatabase[] = dbs.map((d) => ({
    name: d.name,
    engine: d.engine,
    version: d.version,
    image: d.image,
    // Said only when set: a database on the manager's engine exports as it always did.
    ...(Object.keys(d.placement ?? {}).length > 0 ? { placement: sortedRecord(d.placement) } : {}),
    backupSchedule: d.backupSchedule ? { cron: d.backupSchedule.cron, keep: d.backupSchedule.keep, target: nameOf(targets, d.backupSchedule.targetId) ?? "" } : null,
  }));
  const body: SpecBody = { vars: Object.fromEntries(vars.map((v) => [v.key, v.value])), apps: apps.map((a) => ({ name: a.name })), services, databases };
  const running: Record<string, string> = {};
  for (const st of statuses) {
    const s = rows.find((r) => r.id === st.serviceId);
    if (s && st.active && st.phase === "running" && st.image) running[s.name] = st.image;
  }
  // A secret's value is covered by its update time: the version changes, the value never reaches the hash.
  const stamp = secrets.map((x) => `${x.serviceId}/${x.key}@${x.updatedAt.toISOString()}`);
  const resourceVersion = createHash("sha256")
    .update(JSON.stringify([env.id, canonical(body), stamp]))
    .digest("hex")
    .slice(0, 24);
  return { env, project: p?.name ?? "", body, resourceVersion, running, targets, credentials, gitCredentials };
}

/** The document `export` prints. */
export function documentOf(state: EnvironmentState): EnvironmentSpec {
  return {
    apiVersion: SPEC_API_VERSION,
    kind: SPEC_KIND,
    metadata: { project: state.project, environment: state.env.name, resourceVersion: state.resourceVersion },
    spec: state.body,
  };
}

/** GET …/spec: the environment as a spec, with its `metadata.resourceVersion`. */
export async function exportSpec({ ctx, envId }: { ctx: Ctx; envId: string }): Promise<EnvironmentSpec> {
  const env = await findEnvironment(ctx, envId, "spec.read");
  return documentOf(await readEnvironment(ctx, env));
}
