import { randomBytes } from "node:crypto";
import { and, desc, eq, inArray, ne } from "drizzle-orm";
import { notifyDesired } from "@levelrail/db/notify";
import { release, service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { serviceKey } from "@levelrail/spec/keys";
import { type PromotedFrom, type ReleaseKind, type ReleaseSpec, type ReleaseView, deployInput, promoteInput } from "@levelrail/spec/service";
import { type Ctx, parse } from "../context";
import { fingerprintConfig } from "../env/effective";
import { findEnvironment } from "../project/list";
import { refuseOthersBuiltImage } from "../service/built-image";
import { findService, releaseSpecOf, releaseView } from "../service/view";
import { audit } from "../audit/record";

type ServiceRow = typeof service.$inferSelect;
type Tx = Parameters<Parameters<Ctx["db"]["transaction"]>[0]>[0];

const newNonce = () => randomBytes(6).toString("hex");

const fingerprints = (p: Awaited<ReturnType<typeof fingerprintConfig>>) => ({
  fingerprint: p?.fingerprint ?? null,
  envFingerprints: p?.envFingerprints ?? null,
});

async function currentRelease(tx: Tx, s: ServiceRow) {
  if (!s.currentReleaseId) return null;
  const [r] = await tx.select().from(release).where(and(eq(release.id, s.currentReleaseId), eq(release.orgId, s.orgId)));
  return r ?? null;
}

/** Records a release as the service's desired state, supersedes any unfinished one and wakes the worker. */
async function record(
  ctx: Ctx,
  tx: Tx,
  s: ServiceRow,
  r: {
    kind: ReleaseKind;
    spec: ReleaseSpec;
    restartNonce: string;
    imageId: string | null;
    /** With a pinned image id, when that image was built (lead time starts there); the worker records it otherwise. */
    imageCreatedAt?: Date | null;
    createdBy: string;
    fingerprint: string | null;
    envFingerprints: Record<string, string> | null;
    promotedFrom?: PromotedFrom;
  },
) {
  await tx
    .update(release)
    .set({ outcome: "superseded", finishedAt: new Date(), message: "superseded by a newer release" })
    .where(and(eq(release.serviceId, s.id), inArray(release.outcome, ["pending", "deploying"])));
  const [row] = await tx.insert(release).values({ ...r, orgId: s.orgId, serviceId: s.id }).returning();
  await tx
    .update(service)
    .set({ currentReleaseId: row!.id, restartNonce: r.restartNonce, updatedAt: new Date() })
    .where(and(eq(service.id, s.id), eq(service.orgId, s.orgId)));
  await notifyDesired(tx, serviceKey(s.id));
  // One entry per release: `service.deploy`, `.restart`, `.rollback`, `.promote` (promote names where from).
  const fields = r.promotedFrom ? ["to"] : [];
  await audit(ctx, tx, { orgId: s.orgId, action: `service.${r.kind}`, target: { type: "service", id: s.id, name: s.name }, fields });
  return row!;
}

/** Deploy the service's current configuration, optionally with a new image. */
export async function deployService({ ctx, envId, name, input }: { ctx: Ctx; envId: string; name: string; input: unknown }): Promise<ReleaseView> {
  const { image } = parse(deployInput, input);
  const { service: found } = await findService(ctx, envId, name, "service.deploy");
  await refuseOthersBuiltImage(ctx, found.orgId, image);
  return ctx.db.transaction(async (tx) => {
    const [s] = await tx.select().from(service).where(eq(service.id, found.id)).for("update");
    if (!s) throw new LevelrailError("not_found", `service ${name} not found`);
    // A git-sourced service has no image until its first build: there is nothing to run yet.
    if (!image && !s.image) throw new LevelrailError("conflict", `service ${name} has no image yet: its git source has not been built; wait for its first build (or deploy with an image)`);
    if (image && image !== s.image) {
      await tx.update(service).set({ image, updatedAt: new Date() }).where(eq(service.id, s.id));
      s.image = image;
    }
    const spec = releaseSpecOf(s);
    const prev = await currentRelease(tx, s);
    const prints = await fingerprintConfig(ctx, s.id, spec);
    // Same image, changed configuration (spec or any env tier): the container must be replaced, so it gets a new name.
    const changed = prev !== null && (prints?.fingerprint ?? null) !== prev.fingerprint;
    const nonce = changed ? newNonce() : s.restartNonce;
    return releaseView(
      await record(ctx, tx, s, { kind: "deploy", spec, restartNonce: nonce, imageId: null, createdBy: ctx.actor.email, ...fingerprints(prints) }),
    );
  });
}

/** A fresh container of the running release: same image, same configuration, new nonce. */
export async function restartService({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<ReleaseView> {
  const { service: found } = await findService(ctx, envId, name, "service.deploy");
  return ctx.db.transaction(async (tx) => {
    const [s] = await tx.select().from(service).where(eq(service.id, found.id)).for("update");
    const prev = s && (await currentRelease(tx, s));
    if (!s || !prev) throw new LevelrailError("conflict", `service ${name} has never been deployed; deploy it first`);
    const prints = await fingerprintConfig(ctx, s.id, prev.spec);
    return releaseView(
      await record(ctx, tx, s, { kind: "restart", spec: prev.spec, restartNonce: newNonce(), imageId: prev.imageId, imageCreatedAt: prev.imageCreatedAt, createdBy: ctx.actor.email, ...fingerprints(prints) }),
    );
  });
}

/** Deploy the previous successful release again. */
export async function rollbackService({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<ReleaseView> {
  const { service: found } = await findService(ctx, envId, name, "service.deploy");
  return ctx.db.transaction(async (tx) => {
    const [s] = await tx.select().from(service).where(eq(service.id, found.id)).for("update");
    if (!s) throw new LevelrailError("not_found", `service ${name} not found`);
    const successes = await tx
      .select()
      .from(release)
      .where(and(eq(release.serviceId, s.id), eq(release.outcome, "succeeded"), s.currentReleaseId ? ne(release.id, s.currentReleaseId) : undefined))
      .orderBy(desc(release.createdAt))
      .limit(1);
    const target = successes[0];
    if (!target) throw new LevelrailError("conflict", `service ${name} has no earlier successful release to roll back to`);
    // Tiers and secrets are resolved as they are now; if they changed since, the container needs a new name.
    const prints = await fingerprintConfig(ctx, s.id, target.spec);
    const nonce = (prints?.fingerprint ?? null) === target.fingerprint ? target.restartNonce : newNonce();
    return releaseView(
      await record(ctx, tx, s, { kind: "rollback", spec: target.spec, restartNonce: nonce, imageId: target.imageId, imageCreatedAt: target.imageCreatedAt, createdBy: ctx.actor.email, ...fingerprints(prints) }),
    );
  });
}

/** The release a service runs now: its newest successful one, with the image id the worker resolved. */
async function runningRelease(ctx: Ctx, s: ServiceRow) {
  const [r] = await ctx.db
    .select()
    .from(release)
    .where(and(eq(release.serviceId, s.id), eq(release.orgId, s.orgId), eq(release.outcome, "succeeded")))
    .orderBy(desc(release.createdAt))
    .limit(1);
  return r?.imageId ? { ...r, imageId: r.imageId } : null;
}

/**
 * Promote: the same-named service in another environment of the same project deploys the exact
 * image id this one runs (never its tag, which may have moved since), through the normal cutover,
 * with its own configuration; its release records where it came from.
 */
export async function promoteService({ ctx, envId, name, input }: { ctx: Ctx; envId: string; name: string; input: unknown }): Promise<ReleaseView> {
  const { service: from, environment: fromEnv } = await findService(ctx, envId, name, "service.deploy");
  const { to } = parse(promoteInput, input);
  const toEnv = await findEnvironment(ctx, to, "service.deploy");
  if (toEnv.id === fromEnv.id) throw new LevelrailError("invalid_input", `to: service ${name} already runs in ${fromEnv.name}; name another environment`, { field: "to" });
  if (toEnv.projectId !== fromEnv.projectId) {
    throw new LevelrailError("invalid_input", `to: environment ${toEnv.name} is in another project; promote within one project`, { field: "to" });
  }
  const source = await runningRelease(ctx, from);
  if (!source) throw new LevelrailError("conflict", `service ${name} has no successful deploy in ${fromEnv.name} to promote; deploy it first`);
  const target = await findService(ctx, toEnv.id, name, "service.deploy").catch((err: unknown) => {
    if (err instanceof LevelrailError && err.code === "not_found") {
      throw new LevelrailError("not_found", `service ${name} not found in environment ${toEnv.name}; create it there first`, { field: "to" });
    }
    throw err;
  });
  return ctx.db.transaction(async (tx) => {
    const [s] = await tx.select().from(service).where(eq(service.id, target.service.id)).for("update");
    if (!s) throw new LevelrailError("not_found", `service ${name} not found in environment ${toEnv.name}`, { field: "to" });
    // The draft follows the promoted image, so a later Deploy here starts from what runs.
    await tx.update(service).set({ image: source.spec.image, updatedAt: new Date() }).where(eq(service.id, s.id));
    s.image = source.spec.image;
    const spec = releaseSpecOf(s);
    const prev = await currentRelease(tx, s);
    const prints = await fingerprintConfig(ctx, s.id, spec);
    const changed = prev !== null && (prints?.fingerprint ?? null) !== prev.fingerprint;
    return releaseView(
      await record(ctx, tx, s, {
        kind: "promote",
        spec,
        restartNonce: changed ? newNonce() : s.restartNonce,
        imageId: source.imageId,
        imageCreatedAt: source.imageCreatedAt,
        createdBy: ctx.actor.email,
        ...fingerprints(prints),
        promotedFrom: { environmentId: fromEnv.id, environment: fromEnv.name, releaseId: source.id },
      }),
    );
  });
}

export async function listReleases({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<ReleaseView[]> {
  const { service: s } = await findService(ctx, envId, name, "service.read");
  const rows = await ctx.db
    .select()
    .from(release)
    .where(and(eq(release.serviceId, s.id), eq(release.orgId, s.orgId)))
    .orderBy(desc(release.createdAt))
    .limit(100);
  return rows.map(releaseView);
}
