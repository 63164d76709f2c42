import { and, eq, inArray, isNotNull, or } from "drizzle-orm";
import { z } from "zod";
import { notifyDesired } from "@levelrail/db/notify";
import { envVar, secret } from "@levelrail/db/schema/config";
import { type WithheldItem, gitSource } from "@levelrail/db/schema/git";
import { environment, project } from "@levelrail/db/schema/orgs";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { app, service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { NETWORKS_KEY, serviceKey } from "@levelrail/spec/keys";
import { resourceName } from "@levelrail/spec/rules";
import { type Ctx, parse, uniquely } from "../context";
import { insertDatabase, tearDownDatabases } from "../database/write";
import { copyGitSources } from "../git/source";
import { assertQuota } from "../org/quota";
import { deployService } from "../release/deploy";
import { type EnvironmentView, findEnvironment, getProject, toEnvironmentView } from "./list";
import { audit } from "../audit/record";

type Tx = Parameters<Parameters<Ctx["db"]["transaction"]>[0]>[0];
type EnvironmentRow = typeof environment.$inferSelect;

const environmentInput = z
  .object({
    name: resourceName,
    /** Clone this environment of the same project: apps, services, its tier vars and secrets (re-sealed); no domains. */
    from: z.string().uuid("must be an environment id").optional(),
  })
  .strict();

/**
 * A clone for code the organization does not trust (a fork's pull request): it gets none of the
 * source environment's secrets, credentials, storage targets or database attachments (and no
 * databases), and `record` is called in the clone's transaction with what was left out.
 */
export interface Withhold {
  record(tx: Tx, withheld: WithheldItem[]): Promise<void>;
}

/** Called in the new environment's transaction with its id (a preview records the environment its own clone made). */
export type OnCreated = (tx: Tx, environmentId: string) => Promise<void>;

/** A new environment of a project, empty or a clone of another one; `deploy` deploys every cloned service; `withhold` clones without secrets; `onCreated` is told its id in its transaction. */
export async function createEnvironment({
  ctx,
  projectId,
  input,
  deploy = false,
  withhold,
  onCreated,
}: {
  ctx: Ctx;
  projectId: string;
  input: unknown;
  deploy?: boolean;
  withhold?: Withhold;
  onCreated?: OnCreated;
}): Promise<EnvironmentView> {
  const p = await getProject(ctx, projectId, "environment.create");
  const { name, from } = parse(environmentInput, input);
  const source = from === undefined ? null : await sourceEnvironment(ctx, p.id, from);
  const row = await uniquely("name", `environment ${name}`, () =>
    ctx.db.transaction(async (tx) => {
      const [env] = await tx.insert(environment).values({ orgId: p.orgId, projectId: p.id, name }).returning();
      if (source) {
        const withheld = await copyEnvironment(ctx, tx, source, env!, withhold !== undefined);
        await withhold?.record(tx, withheld);
      }
      await onCreated?.(tx, env!.id);
      const target = { type: "environment", id: env!.id, name: `${p.name}/${name}` };
      await audit(ctx, tx, { orgId: p.orgId, action: source ? "environment.clone" : "environment.create", target, fields: source ? ["name", "from"] : ["name"] });
      return env!;
    }),
  );
  if (source && deploy) {
    const names = await ctx.db.select({ name: service.name }).from(service).where(eq(service.environmentId, row.id)).orderBy(service.name);
    for (const s of names) await deployService({ ctx, envId: row.id, name: s.name, input: {} });
  }
  return toEnvironmentView(row);
}

/** `from` must be an environment of the same project: 400 naming it otherwise (another organization's included). */
async function sourceEnvironment(ctx: Ctx, projectId: string, id: string): Promise<EnvironmentRow> {
  const env = await findEnvironment(ctx, id, "environment.read").catch((err: unknown) => {
    if (err instanceof LevelrailError && err.code === "not_found") return null;
    throw err;
  });
  if (!env || env.projectId !== projectId) throw new LevelrailError("invalid_input", "from: no such environment in this project", { field: "from" });
  return env;
}

/**
 * Copies apps, services (config, env, hooks, attachments, git sources with new webhook secrets; never
 * domains), tier vars and re-sealed secrets. `withhold`: no secrets, no database attachments (nor
 * databases), no storage target, no registry or git credential; answers what was left out.
 */
async function copyEnvironment(ctx: Ctx, tx: Tx, from: EnvironmentRow, to: EnvironmentRow, withhold: boolean): Promise<WithheldItem[]> {
  const withheld: WithheldItem[] = [];
  const vars = await tx.select().from(envVar).where(and(eq(envVar.scope, "environment"), eq(envVar.scopeId, from.id), eq(envVar.orgId, from.orgId)));
  if (vars.length) await tx.insert(envVar).values(vars.map((v) => ({ orgId: to.orgId, scope: v.scope, scopeId: to.id, key: v.key, value: v.value })));

  const apps = await tx.select().from(app).where(and(eq(app.environmentId, from.id), eq(app.orgId, from.orgId)));
  const services = await tx.select().from(service).where(and(eq(service.environmentId, from.id), eq(service.orgId, from.orgId)));
  // All or nothing: over a quota, the whole clone (the environment included) is refused.
  await assertQuota(ctx, tx, to.orgId, { apps: apps.length, services: services.length });
  // Databases are created empty (same engine, version and image; no schedule): attachments resolve by name.
  const dbs = withhold ? [] : await tx.select().from(managedDatabase).where(and(eq(managedDatabase.environmentId, from.id), eq(managedDatabase.orgId, from.orgId)));
  for (const d of dbs) {
    await insertDatabase(ctx, tx, { orgId: to.orgId, environmentId: to.id, name: d.name, engine: d.engine, version: d.version, image: d.image, backupSchedule: null, placement: d.placement });
  }
  const appIds = new Map<string, string>();
  for (const a of apps) {
    const [copy] = await tx.insert(app).values({ orgId: to.orgId, environmentId: to.id, name: a.name }).returning({ id: app.id });
    appIds.set(a.id, copy!.id);
  }

  const serviceIds = new Map<string, string>();
  for (const s of services) {
    const { id: _id, appId, environmentId: _env, currentReleaseId: _rel, restartNonce: _nonce, domains: _domains, createdAt: _c, updatedAt: _u, ...fields } = s;
    if (withhold) {
      for (const key of Object.keys(fields.databaseEnv).sort()) withheld.push({ service: s.name, key, kind: "database" });
      if (fields.storageTargetId) withheld.push({ service: s.name, key: "S3_*", kind: "storage" });
      if (fields.registryCredentialId) withheld.push({ service: s.name, key: "registryCredentialId", kind: "registry-credential" });
    }
    const kept = withhold ? { databaseEnv: {}, storageTargetId: null, registryCredentialId: null } : {};
    const [copy] = await tx
      .insert(service)
      .values({ ...fields, ...kept, orgId: to.orgId, appId: appIds.get(appId)!, environmentId: to.id, domains: [] })
      .returning({ id: service.id });
    serviceIds.set(s.id, copy!.id);
    await notifyDesired(tx, serviceKey(copy!.id));
  }

  await copyGitSources(ctx, tx, to.orgId, serviceIds);
  if (withhold && serviceIds.size) {
    const copies = [...serviceIds.values()];
    const nameOf = new Map(services.map((s) => [serviceIds.get(s.id)!, s.name]));
    const credentialed = await tx
      .select({ id: gitSource.id, serviceId: gitSource.serviceId, credentialId: gitSource.credentialId, apiCredentialId: gitSource.apiCredentialId })
      .from(gitSource)
      .where(and(inArray(gitSource.serviceId, copies), eq(gitSource.orgId, to.orgId), or(isNotNull(gitSource.credentialId), isNotNull(gitSource.apiCredentialId))));
    for (const g of credentialed) {
      if (g.credentialId) withheld.push({ service: nameOf.get(g.serviceId) ?? "", key: "credentialId", kind: "git-credential" });
      if (g.apiCredentialId) withheld.push({ service: nameOf.get(g.serviceId) ?? "", key: "apiCredentialId", kind: "git-credential" });
    }
    // The copy's provider API is not called (the base's source reports statuses and lists requests).
    if (credentialed.length) {
      await tx
        .update(gitSource)
        .set({ credentialId: null, apiCredentialId: null, apiProvider: null, apiUrl: null })
        .where(and(inArray(gitSource.id, credentialed.map((g) => g.id)), eq(gitSource.orgId, to.orgId)));
    }
  }
  const secrets = services.length
    ? await tx.select().from(secret).where(and(inArray(secret.serviceId, [...serviceIds.keys()]), eq(secret.orgId, from.orgId)))
    : [];
  if (withhold) {
    const nameOf = new Map(services.map((s) => [s.id, s.name]));
    for (const x of secrets) withheld.push({ service: nameOf.get(x.serviceId) ?? "", key: x.key, kind: "secret" });
    return withheld.sort((a, b) => a.service.localeCompare(b.service) || a.kind.localeCompare(b.kind) || a.key.localeCompare(b.key));
  }
  // Opened and sealed again in memory: the copy has its own nonce (and the current key), and no value leaves this function.
  const sealed = secrets.map((x) => ({ orgId: to.orgId, serviceId: serviceIds.get(x.serviceId)!, key: x.key, sealed: ctx.kit.keyring.seal(ctx.kit.keyring.open(x.sealed)) }));
  if (sealed.length) await tx.insert(secret).values(sealed);
  return withheld;
}

/**
 * Deletes an environment with everything in it: its services (the worker then removes their
 * containers), its apps (their networks go on the next cleanup pass), its databases (their volumes
 * only with `dropData`), its tier vars and the record.
 */
export async function deleteEnvironment({ ctx, envId, dropData = false }: { ctx: Ctx; envId: string; dropData?: boolean }): Promise<void> {
  const env = await findEnvironment(ctx, envId, "environment.delete");
  await ctx.db.transaction(async (tx) => {
    await removeEnvironments(tx, [env], dropData);
    await audit(ctx, tx, { orgId: env.orgId, action: "environment.delete", target: { type: "environment", id: env.id, name: env.name }, fields: dropData ? ["dropData"] : [] });
  });
}

/** Deletes a project with its environments (as deleteEnvironment does each) and its tier vars. */
export async function deleteProject({ ctx, projectId, dropData = false }: { ctx: Ctx; projectId: string; dropData?: boolean }): Promise<void> {
  const p = await getProject(ctx, projectId, "project.delete");
  await ctx.db.transaction(async (tx) => {
    const envs = await tx.select().from(environment).where(and(eq(environment.projectId, p.id), eq(environment.orgId, p.orgId)));
    await removeEnvironments(tx, envs, dropData);
    await tx.delete(envVar).where(and(eq(envVar.scope, "project"), eq(envVar.scopeId, p.id), eq(envVar.orgId, p.orgId)));
    await tx.delete(project).where(and(eq(project.id, p.id), eq(project.orgId, p.orgId)));
    await audit(ctx, tx, { orgId: p.orgId, action: "project.delete", target: { type: "project", id: p.id, name: p.name }, fields: dropData ? ["dropData"] : [] });
  });
}

async function removeEnvironments(tx: Tx, envs: EnvironmentRow[], dropData: boolean): Promise<void> {
  for (const env of envs) {
    // Their containers go; their data only when asked (`?dropData=true`).
    const dbs = await tx.select({ id: managedDatabase.id }).from(managedDatabase).where(and(eq(managedDatabase.environmentId, env.id), eq(managedDatabase.orgId, env.orgId)));
    await tearDownDatabases(tx, dbs.map((d) => d.id), dropData);
    const gone = await tx
      .delete(service)
      .where(and(eq(service.environmentId, env.id), eq(service.orgId, env.orgId)))
      .returning({ id: service.id });
    await tx.delete(app).where(and(eq(app.environmentId, env.id), eq(app.orgId, env.orgId)));
    await tx.delete(envVar).where(and(eq(envVar.scope, "environment"), eq(envVar.scopeId, env.id), eq(envVar.orgId, env.orgId)));
    await tx.delete(environment).where(and(eq(environment.id, env.id), eq(environment.orgId, env.orgId)));
    for (const s of gone) await notifyDesired(tx, serviceKey(s.id));
  }
  await notifyDesired(tx, NETWORKS_KEY);
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { environmentInput as environmentInput };
