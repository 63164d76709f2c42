import { and, count, eq, inArray, ne, sql } from "drizzle-orm";
import { notifyDesired } from "@levelrail/db/notify";
import { backupTarget, registryCredential } from "@levelrail/db/schema/config";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { app, service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { NETWORKS_KEY, serviceKey } from "@levelrail/spec/keys";
import { type ServiceSource, type ServiceView, serviceCreate, servicePatch } from "@levelrail/spec/service";
import { findApp } from "../app/app";
import { claimDomains, claimsWithoutProof, refuseProvenElsewhere } from "../domain/status";
import { type Ctx, parse, scope, uniquely } from "../context";
import { assertDomainQuota, assertQuota } from "../org/quota";
import { wakeDatabases } from "../database/write";
import { findEnvironment } from "../project/list";
import { checkGitSource, writeSource } from "../git/source";
import { refuseOthersBuiltImage } from "./built-image";
import { findService, serviceView } from "./view";
import { audit, fieldNames } from "../audit/record";
import { refuseOnOneEngine } from "../node/engine";

/** Attachments must name an object of the service's own organization: 400 naming the field otherwise. */
async function checkAttachments(
  ctx: Ctx,
  at: { orgId: string; environmentId: string },
  refs: { storageTargetId?: string | null | undefined; registryCredentialId?: string | null | undefined; databaseEnv?: Record<string, { from: string }> | undefined },
) {
  const orgId = at.orgId;
  const wanted = [...new Set(Object.values(refs.databaseEnv ?? {}).map((v) => v.from))];
  if (wanted.length) {
    // Only this environment's databases: whether one of that name exists elsewhere is not said.
    const found = await ctx.db
      .select({ name: managedDatabase.name })
      .from(managedDatabase)
      .where(and(eq(managedDatabase.environmentId, at.environmentId), eq(managedDatabase.orgId, orgId), inArray(managedDatabase.name, wanted)));
    const missing = wanted.filter((n) => !found.some((f) => f.name === n));
    if (missing.length) {
      throw new LevelrailError("invalid_input", `databaseEnv: no database named ${missing.join(", ")} in this environment; create it first`, { field: "databaseEnv" });
    }
  }
  if (refs.storageTargetId) {
    const [t] = await ctx.db.select({ id: backupTarget.id }).from(backupTarget).where(and(eq(backupTarget.id, refs.storageTargetId), eq(backupTarget.orgId, orgId)));
    if (!t) throw new LevelrailError("invalid_input", "storageTargetId: no such backup target in this organization", { field: "storageTargetId" });
  }
  if (refs.registryCredentialId) {
    const [c] = await ctx.db
      .select({ id: registryCredential.id })
      .from(registryCredential)
      .where(and(eq(registryCredential.id, refs.registryCredentialId), eq(registryCredential.orgId, orgId)));
    if (!c) throw new LevelrailError("invalid_input", "registryCredentialId: no such registry credential in this organization", { field: "registryCredentialId" });
  }
}

/**
 * A domain routes to one service: 409 naming the field when another service has it (of this
 * organization, or another's exempt or proven domain), or when another organization has proven it.
 */
async function checkDomains(ctx: Ctx, orgId: string, domains: string[] | undefined, except: string | null) {
  if (!domains?.length) return;
  const panel = ctx.panelHost?.toLowerCase();
  if (panel && domains.includes(panel)) {
    throw new LevelrailError("invalid_input", `domains: ${panel} is the panel's own host; a service there would receive the operators' sessions`, { field: "domains" });
  }
  const taken = await ctx.db
    .select({ name: service.name, orgId: service.orgId, domains: service.domains })
    .from(service)
    .where(and(sql`${service.domains} ?| array[${sql.join(domains.map((d) => sql`${d}`), sql`, `)}]::text[]`, except ? ne(service.id, except) : undefined));
  // Another organization's unproven claim on a domain that needs a proof blocks nobody: whoever proves it routes it.
  const squatted = await claimsWithoutProof(ctx, taken.filter((t) => t.orgId !== orgId));
  for (const t of taken) {
    const d = t.domains.find((x) => domains.includes(x) && !squatted.has(`${t.orgId} ${x}`));
    if (d === undefined) continue;
    // Another organization's service is not named.
    const owner = ctx.actor.orgIds.includes(t.orgId) ? `service ${t.name}` : "another service";
    throw new LevelrailError("conflict", `domains: ${d} is already routed to ${owner}`, { field: "domains" });
  }
  await refuseProvenElsewhere(ctx, orgId, domains);
}

const imageField = (message: string) => new LevelrailError("invalid_input", `image: ${message}`, { field: "image" });

/**
 * A new service's image: `image`, or its `source`'s. A git-sourced one has none ("") until its first
 * build; giving both an image and a git source, or neither, is a 400 naming `image`.
 */
function imageOf(image: string | undefined, source: ServiceSource | undefined): string {
  if (source?.git) {
    if (image !== undefined) throw imageField("a git-sourced service's image comes from its builds; leave image out");
    return "";
  }
  if (source?.image !== undefined && image !== undefined && image !== source.image) throw imageField("must be the source's image, or left out");
  const chosen = image ?? source?.image;
  if (chosen === undefined) throw imageField('is required (or give source: {"git": {"url": "…"}} to build it from a repository)');
  return chosen;
}

/** Creates a service in an environment, in one of that environment's apps. */
export async function createService({ ctx, envId, input }: { ctx: Ctx; envId: string; input: unknown }): Promise<ServiceView> {
  const env = await findEnvironment(ctx, envId, "service.write");
  const spec = parse(serviceCreate, input);
  if (spec.environmentId !== undefined && spec.environmentId !== env.id) {
    throw new LevelrailError("invalid_input", "environmentId: must be the environment of the path (or left out)", { field: "environmentId" });
  }
  const a = await findApp(ctx, env.id, spec.app, "service.write").catch((err: unknown) => {
    if (err instanceof LevelrailError && err.code === "not_found") {
      throw new LevelrailError("invalid_input", `app: no app named ${spec.app} in environment ${env.name}; create it first`, { field: "app" });
    }
    throw err;
  });
  const environmentId = env.id;
  const image = imageOf(spec.image, spec.source);
  await refuseOthersBuiltImage(ctx, a.orgId, image);
  await checkAttachments(ctx, { orgId: a.orgId, environmentId }, spec);
  await checkGitSource(ctx, a.orgId, spec.source);
  await checkDomains(ctx, a.orgId, spec.domains, null);
  await refuseOnOneEngine(ctx, spec);
  const { name, app: _app, environmentId: _env, source, image: _image, ...fields } = spec;
  const { row, written } = await uniquely("name", `service ${name}`, () =>
    ctx.db.transaction(async (tx) => {
      await assertQuota(ctx, tx, a.orgId, { services: 1, domains: fields.domains?.length ?? 0 });
      const [r] = await tx.insert(service).values({ ...fields, image, name, orgId: a.orgId, appId: a.id, environmentId }).returning();
      // A git source gets its webhook secret and a first build; nothing deploys before that build.
      const written = await writeSource(ctx, tx, r!, null, source?.git ? source : undefined);
      await claimDomains(ctx, tx, a.orgId, fields.domains ?? []);
      await notifyDesired(tx, serviceKey(r!.id));
      await wakeDatabases(tx, environmentId, fields.databaseEnv);
      await audit(ctx, tx, { orgId: a.orgId, action: "service.create", target: { type: "service", id: r!.id, name }, fields: fieldNames(spec) });
      return { row: r!, written };
    }),
  );
  return serviceView(row, a.name, written.git, written.secret);
}

export async function patchService({ ctx, envId, name, input }: { ctx: Ctx; envId: string; name: string; input: unknown }): Promise<ServiceView> {
  const { service: s, appName, git } = await findService(ctx, envId, name, "service.write");
  const { source, ...patch } = parse(servicePatch, input);
  if (patch.image !== undefined) {
    if (source?.git) throw imageField("a git-sourced service's image comes from its builds; leave image out");
    if (!source && git) throw imageField('the service builds from its git source; PATCH source {"image": "…"} to switch it to an image');
    if (source?.image !== undefined && source.image !== patch.image) throw imageField("must be the source's image, or left out");
  }
  await refuseOthersBuiltImage(ctx, s.orgId, patch.image ?? source?.image);
  await checkAttachments(ctx, s, patch);
  await checkGitSource(ctx, s.orgId, source);
  await checkDomains(ctx, s.orgId, patch.domains, s.id);
  // Only what this patch asks: a service's stored replicas are not asked again by a patch of its port.
  await refuseOnOneEngine(ctx, patch);
  const { row, written } = await ctx.db.transaction(async (tx) => {
    if (patch.domains) await assertDomainQuota(ctx, tx, s.orgId, s.id, patch.domains.length);
    if (patch.domains) await claimDomains(ctx, tx, s.orgId, patch.domains);
    // A switch to git keeps the last image (Deploy and restart still run it) until a build replaces it.
    const written = await writeSource(ctx, tx, s, git, source);
    const [r] = await tx
      .update(service)
      .set({ ...patch, ...(written.image === undefined ? {} : { image: written.image }), updatedAt: new Date() })
      .where(and(eq(service.id, s.id), inArray(service.orgId, scope(ctx))))
      .returning();
    // Nothing restarts (Deploy applies a change), but routes follow domains at once.
    await notifyDesired(tx, serviceKey(s.id));
    if (patch.databaseEnv) await wakeDatabases(tx, s.environmentId, s.databaseEnv, patch.databaseEnv);
    await audit(ctx, tx, { orgId: s.orgId, action: "service.update", target: { type: "service", id: s.id, name: s.name }, fields: fieldNames(source ? { ...patch, source } : patch) });
    return { row: r!, written };
  });
  return serviceView(row, appName, written.git, written.secret);
}

/** Deletes the service; the worker removes its containers. */
export async function deleteService({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<void> {
  const { service: s } = await findService(ctx, envId, name, "service.write");
  await ctx.db.transaction(async (tx) => {
    await tx.delete(service).where(and(eq(service.id, s.id), eq(service.orgId, s.orgId)));
    // The last service of an app takes the app with it; its network goes on the next cleanup pass.
    const [left] = await tx.select({ n: count() }).from(service).where(eq(service.appId, s.appId));
    if ((left?.n ?? 0) === 0) await tx.delete(app).where(and(eq(app.id, s.appId), eq(app.orgId, s.orgId)));
    await notifyDesired(tx, serviceKey(s.id));
    await notifyDesired(tx, NETWORKS_KEY);
    await wakeDatabases(tx, s.environmentId, s.databaseEnv);
    await audit(ctx, tx, { orgId: s.orgId, action: "service.delete", target: { type: "service", id: s.id, name: s.name } });
  });
}
