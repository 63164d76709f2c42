import { randomBytes } from "node:crypto";
import { and, desc, eq, inArray, isNotNull, ne, or } from "drizzle-orm";
import { build, gitSource, preview, previewSettings } from "@levelrail/db/schema/git";
import { environment } from "@levelrail/db/schema/orgs";
import { service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { normalizeRepo, previewEnvironmentName, previewRoutes } from "@levelrail/spec/preview";
import { recordAudit } from "../audit/record";
import { enqueueBuild } from "../build/enqueue";
import { type OnCreated, type Withhold, createEnvironment, deleteEnvironment } from "../project/environment";
import { deployService } from "../release/deploy";
import { patchService } from "../service/write";
import { isAwaiting, isUntrusted } from "./approval";
import type { PreviewOutcome } from "./provider-api";
import { type PreviewDeps, previewCtx } from "./worker-ctx";

type PreviewRow = typeof preview.$inferSelect;

/** A preview as the controller's plan sees it. */
export interface ObservedPreview {
  id: string;
  orgId: string;
  number: number;
  state: PreviewRow["state"];
  environmentId: string | null;
  headCommit: string;
  builtCommit: string | null;
  statusUrl: string | null;
  reported: string | null;
  /** The project's preview domain; null when the project's settings are gone. */
  domain: string | null;
  /** A fork's or an outsider's request whose head commit no member has approved: nothing is cloned or built. */
  awaitingApproval: boolean;
}

/** Every preview with something left to do (open ones, and closed ones that still have an environment). */
export async function previewsToConverge(d: PreviewDeps): Promise<ObservedPreview[]> {
  const rows = await d.db
    .select({ p: preview, domain: previewSettings.domain })
    .from(preview)
    .leftJoin(previewSettings, eq(previewSettings.projectId, preview.projectId))
    .where(or(eq(preview.state, "open"), isNotNull(preview.environmentId)));
  return rows.map(({ p, domain }) => ({
    id: p.id,
    orgId: p.orgId,
    number: p.number,
    state: p.state,
    environmentId: p.environmentId,
    headCommit: p.headCommit,
    builtCommit: p.builtCommit,
    statusUrl: p.statusUrl,
    reported: p.reported,
    domain,
    awaitingApproval: isAwaiting(p),
  }));
}

async function load(d: PreviewDeps, id: string) {
  const [row] = await d.db
    .select({ p: preview, s: previewSettings })
    .from(preview)
    .innerJoin(previewSettings, eq(previewSettings.projectId, preview.projectId))
    .where(eq(preview.id, id));
  return row ?? null;
}

/** The base environment's git sources, with whether each builds from the preview's repository. */
async function sourcesOf(d: PreviewDeps, envId: string, orgId: string, repo: string) {
  const rows = await d.db
    .select({ src: gitSource, name: service.name })
    .from(gitSource)
    .innerJoin(service, eq(service.id, gitSource.serviceId))
    .where(and(eq(service.environmentId, envId), eq(service.orgId, orgId), eq(gitSource.orgId, orgId)));
  return rows.map((r) => ({ ...r, sameRepo: normalizeRepo(r.src.url) === repo }));
}

/**
 * Opens a preview's environment: clones the base environment (the clone verb: no domains, databases
 * empty) into `pr-<n>` (one of that name is taken as the preview's, after a crash), gives its services
 * the base's git sources (those of the request's repository at its head branch), routes the services
 * that have domains in the base under the preview domain, deploys those that are not built from the
 * repository, and records the environment last, so a crash anywhere repeats only idempotent steps.
 * A fork's or an outsider's request: nothing until its head commit is approved, then a clone without
 * the base's secrets, credentials, storage targets and database attachments (recorded on the preview
 * in the clone's transaction).
 */
export async function openPreview(d: PreviewDeps, id: string): Promise<void> {
  const row = await load(d, id);
  if (!row || row.p.state !== "open" || row.p.environmentId || isAwaiting(row.p)) return;
  const { p, s } = row;
  const untrusted = isUntrusted(p);
  const ctx = previewCtx(d, p.orgId);
  const name = previewEnvironmentName(p.number);
  const [existing] = await d.db
    .select({ id: environment.id })
    .from(environment)
    .where(and(eq(environment.projectId, p.projectId), eq(environment.orgId, p.orgId), eq(environment.name, name)));
  // What an earlier clone withheld is forgotten once its environment is gone (the foreign key nulled cloned_environment_id).
  if (p.clonedEnvironmentId === null && p.withheld !== null) {
    await d.db.update(preview).set({ withheld: null }).where(and(eq(preview.id, p.id), eq(preview.orgId, p.orgId)));
  }
  // Taken over (after a crash) only when it is the environment this preview's own clone made
  // (docs/security.md, fork preview ↔ base environment): an untrusted preview never adopts a pr-<n> it
  // did not clone (a member's clone or another repository's request's, with the base's secrets), and
  // no preview adopts one another preview claims.
  if (existing && existing.id !== p.clonedEnvironmentId && (untrusted || (await claimedByAnother(d, existing.id, p.id)))) {
    throw new LevelrailError("conflict", `an environment ${name} exists that was not cloned for this request${untrusted ? " without the base's secrets" : ""}; delete it, and the preview is cloned again`);
  }
  const onCreated: OnCreated = async (tx, envId) => {
    await tx.update(preview).set({ clonedEnvironmentId: envId }).where(and(eq(preview.id, p.id), eq(preview.orgId, p.orgId)));
  };
  const withhold: Withhold | undefined = untrusted
    ? {
        async record(tx, withheld) {
          await tx.update(preview).set({ withheld }).where(and(eq(preview.id, p.id), eq(preview.orgId, p.orgId)));
        },
      }
    : undefined;
  const envId = existing?.id ?? (await createEnvironment({ ctx, projectId: p.projectId, input: { name, from: s.baseEnvironmentId }, onCreated, ...(withhold ? { withhold } : {}) })).id;
  const base = await d.db
    .select({ name: service.name, domains: service.domains })
    .from(service)
    .where(and(eq(service.environmentId, s.baseEnvironmentId), eq(service.orgId, p.orgId)));
  const clones = await d.db.select({ id: service.id, name: service.name, released: service.currentReleaseId }).from(service).where(and(eq(service.environmentId, envId), eq(service.orgId, p.orgId)));
  const cloneOf = new Map(clones.map((c) => [c.name, c.id]));
  const sources = await sourcesOf(d, s.baseEnvironmentId, p.orgId, p.repo);
  for (const { src, name: svc, sameRepo } of sources) {
    const serviceId = cloneOf.get(svc);
    if (!serviceId) continue;
    const { id: _id, serviceId: _s, createdAt: _c, updatedAt: _u, lastPolledAt: _p, lastSeenCommit: _l, lastError: _e, webhookSecretSealed: _w, ...all } = src;
    const fields = untrusted ? { ...all, credentialId: null, apiCredentialId: null, apiProvider: null, apiUrl: null } : all;
    const ref = sameRepo ? p.headRef : src.ref;
    await d.db
      .insert(gitSource)
      .values({ ...fields, serviceId, ref, pollIntervalSeconds: null, webhookSecretSealed: d.kit.keyring.seal(randomBytes(32).toString("base64url")) })
      // The clone copied the base's source, its poll interval too: a preview's source never polls (polling would
      // deploy the base repository's branch named like the request's head ref, approved or not).
      .onConflictDoUpdate({ target: gitSource.serviceId, set: { ref, pollIntervalSeconds: null, updatedAt: new Date() } });
  }
  const routes = previewRoutes(base.filter((b) => b.domains.length > 0).map((b) => b.name), p.number, s.domain);
  for (const [svc, domain] of routes) {
    if (cloneOf.has(svc)) await patchService({ ctx, envId, name: svc, input: { domains: [domain] } });
  }
  const built = new Set(sources.filter((x) => x.sameRepo).map((x) => x.name));
  for (const c of clones) if (!built.has(c.name) && c.released === null) await deployService({ ctx, envId, name: c.name, input: {} });
  const [after] = await d.db.select({ withheld: preview.withheld }).from(preview).where(eq(preview.id, p.id));
  const left = after?.withheld?.length ? `; withheld from the base (a fork's or an outsider's request): ${after.withheld.map((w) => `${w.service ? `${w.service} ` : ""}${w.key} (${w.kind})`).join(", ")}` : "";
  await d.db
    .update(preview)
    .set({ environmentId: envId, clonedEnvironmentId: envId, message: `environment ${name} cloned${untrusted ? " without the base's secrets, credentials, storage targets and database attachments" : ""}${left}` })
    .where(and(eq(preview.id, p.id), eq(preview.state, "open")));
}

/** Whether another preview's environment (cloned or in use) is this one. */
async function claimedByAnother(d: PreviewDeps, envId: string, previewId: string): Promise<boolean> {
  const [other] = await d.db
    .select({ id: preview.id })
    .from(preview)
    .where(and(ne(preview.id, previewId), or(eq(preview.environmentId, envId), eq(preview.clonedEnvironmentId, envId))))
    .limit(1);
  return other !== undefined;
}

/** Queues builds of the head commit for the preview's services built from its repository (each deploys once built). */
export async function buildPreview(d: PreviewDeps, id: string): Promise<number> {
  const row = await load(d, id);
  if (!row || row.p.state !== "open" || !row.p.environmentId || row.p.builtCommit === row.p.headCommit) return 0;
  const { p } = row;
  const envId = row.p.environmentId;
  const sources = (await sourcesOf(d, envId, p.orgId, p.repo)).filter((x) => x.sameRepo);
  return d.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(preview).where(eq(preview.id, p.id)).for("update");
    if (!locked || locked.state !== "open" || locked.headCommit !== p.headCommit) return 0;
    // A fork's or an outsider's head commit builds only once approved, and only in an environment cloned without secrets.
    if (isAwaiting(locked)) return 0;
    if (isUntrusted(locked) && (locked.withheld === null || locked.clonedEnvironmentId !== locked.environmentId)) {
      await tx
        .update(preview)
        .set({ message: "not built: the environment was cloned with the base's secrets before the request was known as a fork's or an outsider's; close and reopen the request" })
        .where(eq(preview.id, p.id));
      return 0;
    }
    for (const { src } of sources) {
      await enqueueBuild(tx, { orgId: p.orgId, serviceId: src.serviceId, commit: p.headCommit, ref: p.headRef, trigger: "preview", createdBy: `preview #${p.number}`, deploy: true });
      await tx.update(gitSource).set({ ref: p.headRef, lastSeenCommit: p.headCommit, updatedAt: new Date() }).where(eq(gitSource.id, src.id));
    }
    const building = sources.length ? `building ${p.headCommit.slice(0, 12)} (${sources.length} service${sources.length === 1 ? "" : "s"})` : "no service of this repository to build";
    const approved = isUntrusted(locked) ? `; approved by ${locked.approvedBy ?? "a member"}, in an environment without the base's secrets, credentials, storage targets and database attachments (${locked.withheld?.length ?? 0} withheld)` : "";
    const message = `${building}${approved}`;
    await tx.update(preview).set({ builtCommit: p.headCommit, reported: null, message }).where(eq(preview.id, p.id));
    await recordAudit(tx, { actor: { type: "worker", id: d.runner, name: "previews" }, ip: null }, { orgId: p.orgId, action: "preview.build", target: { type: "preview", id: p.id, name: `#${p.number}` }, fields: ["headCommit"] });
    return sources.length;
  });
}

/** Deletes a closed (or refused) preview's environment with everything in it (the delete verb: containers, networks and volumes go through their controllers). */
export async function removePreview(d: PreviewDeps, id: string): Promise<void> {
  const [p] = await d.db.select().from(preview).where(eq(preview.id, id));
  if (!p?.environmentId || p.state === "open") return;
  try {
    await deleteEnvironment({ ctx: previewCtx(d, p.orgId), envId: p.environmentId, dropData: true });
  } catch (err) {
    if (!(err instanceof LevelrailError && err.code === "not_found")) throw err;
  }
  await d.db
    .update(preview)
    .set({ environmentId: null, clonedEnvironmentId: null, withheld: null, message: `${p.message ? `${p.message.replace(/; deleting its environment$/, "")}; ` : ""}environment deleted` })
    .where(and(eq(preview.id, p.id), ne(preview.state, "open")));
}

/** The preview's outcome at its head commit: failure if a build failed, success once every build succeeded, else pending. */
export async function previewOutcome(d: PreviewDeps, id: string): Promise<PreviewOutcome> {
  const [p] = await d.db.select().from(preview).where(eq(preview.id, id));
  if (!p?.environmentId) return "pending";
  const services = await d.db.select({ id: service.id }).from(service).where(and(eq(service.environmentId, p.environmentId), eq(service.orgId, p.orgId)));
  if (!services.length) return "success";
  const builds = await d.db
    .select({ serviceId: build.serviceId, status: build.status })
    .from(build)
    .where(and(inArray(build.serviceId, services.map((s) => s.id)), eq(build.commit, p.headCommit), eq(build.trigger, "preview"), eq(build.orgId, p.orgId)))
    .orderBy(desc(build.createdAt));
  const latest = new Map<string, string>();
  for (const b of builds) if (!latest.has(b.serviceId)) latest.set(b.serviceId, b.status);
  const states = [...latest.values()];
  if (states.some((s) => s === "failed" || s === "cancelled")) return "failure";
  return states.every((s) => s === "succeeded") ? "success" : "pending";
}

/** Records what was posted to the status URL (`<state> <commit>`), or why it could not be. */
export async function recordReport(d: PreviewDeps, id: string, reported: string | null, message?: string): Promise<void> {
  await d.db
    .update(preview)
    .set({ ...(reported !== null ? { reported } : {}), ...(message !== undefined ? { message } : {}) })
    .where(eq(preview.id, id));
}

/** Records why a step could not be taken (a quota, a domain taken), on the preview where the project page shows it. */
export async function recordPreviewMessage(d: PreviewDeps, id: string, message: string): Promise<void> {
  await d.db.update(preview).set({ message }).where(eq(preview.id, id));
}
