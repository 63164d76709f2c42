import { randomBytes } from "node:crypto";
import { and, desc, eq, inArray, ne } from "drizzle-orm";
import { notifyDesired, serviceKey } from "@levelrail/db/notify";
import { release, service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { type ReleaseKind, type ReleaseSpec, type ReleaseView, deployInput } from "@levelrail/spec/service";
import { type Ctx, parse } from "../context";
import { fingerprintConfig } from "../env/effective";
import { findService, releaseSpecOf, releaseView } from "../service/view";

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
  tx: Tx,
  s: ServiceRow,
  r: { kind: ReleaseKind; spec: ReleaseSpec; restartNonce: string; imageId: string | null; createdBy: string; fingerprint: string | null; envFingerprints: Record<string, string> | null },
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
  return row!;
}

/** Deploy the service's current configuration, optionally with a new image. */
export async function deployService({ ctx, name, input }: { ctx: Ctx; name: string; input: unknown }): Promise<ReleaseView> {
  const { image } = parse(deployInput, input);
  const { service: found } = await findService(ctx, name);
  return ctx.db.transaction(async (tx) => {
    const [s] = await tx.select().from(service).where(eq(service.id, found.id)).for("update");
    if (!s) throw new LevelrailError("not_found", `service ${name} not found`);
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
      await record(tx, s, { kind: "deploy", spec, restartNonce: nonce, imageId: null, createdBy: ctx.actor.email, ...fingerprints(prints) }),
    );
  });
}

/** A fresh container of the running release: same image, same configuration, new nonce. */
export async function restartService({ ctx, name }: { ctx: Ctx; name: string }): Promise<ReleaseView> {
  const { service: found } = await findService(ctx, name);
  return ctx.db.transaction(async (tx) => {
    const [s] = await tx.select().from(service).where(eq(service.id, found.id)).for("update");
    const prev = s && (await currentRelease(tx, s));
    if (!s || !prev) throw new LevelrailError("conflict", `service ${name} has never been deployed; deploy it first`);
    const prints = await fingerprintConfig(ctx, s.id, prev.spec);
    return releaseView(
      await record(tx, s, { kind: "restart", spec: prev.spec, restartNonce: newNonce(), imageId: prev.imageId, createdBy: ctx.actor.email, ...fingerprints(prints) }),
    );
  });
}

/** Deploy the previous successful release again. */
export async function rollbackService({ ctx, name }: { ctx: Ctx; name: string }): Promise<ReleaseView> {
  const { service: found } = await findService(ctx, name);
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
      await record(tx, s, { kind: "rollback", spec: target.spec, restartNonce: nonce, imageId: target.imageId, createdBy: ctx.actor.email, ...fingerprints(prints) }),
    );
  });
}

export async function listReleases({ ctx, name }: { ctx: Ctx; name: string }): Promise<ReleaseView[]> {
  const { service: s } = await findService(ctx, name);
  const rows = await ctx.db
    .select()
    .from(release)
    .where(and(eq(release.serviceId, s.id), eq(release.orgId, s.orgId)))
    .orderBy(desc(release.createdAt))
    .limit(100);
  return rows.map(releaseView);
}
