import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { notifyDesired } from "@levelrail/db/notify";
import { build, gitSource } from "@levelrail/db/schema/git";
import { LevelrailError } from "@levelrail/spec/errors";
import { buildKey } from "@levelrail/spec/keys";
import { audit } from "../audit/record";
import { type Ctx, parse } from "../context";
import { enqueueBuild } from "./enqueue";
import { type BuildView, buildService, buildView, findBuild } from "./view";

/** POST …/builds: build the head of `ref` (default the source's tracked ref) now; `deploy` (default true) deploys it once built. */
export const buildRequest = z.strictObject({
  ref: z
    .string()
    .regex(/^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/, "must be a branch or tag name")
    .optional(),
  deploy: z.boolean().optional(),
});

/** POST …/services/{service}/builds: queue a build of the ref's head (202 with the build). */
export async function requestBuild({ ctx, envId, name, input }: { ctx: Ctx; envId: string; name: string; input: unknown }): Promise<BuildView> {
  const s = await buildService(ctx, envId, name, "build.write");
  const r = parse(buildRequest, input);
  const [src] = await ctx.db.select({ ref: gitSource.ref }).from(gitSource).where(and(eq(gitSource.serviceId, s.id), eq(gitSource.orgId, s.orgId)));
  if (!src) throw new LevelrailError("conflict", `service ${name} is not built from a git source; give it one first`);
  const row = await ctx.db.transaction(async (tx) => {
    const b = await enqueueBuild(tx, { orgId: s.orgId, serviceId: s.id, commit: null, ref: r.ref ?? src.ref, trigger: "manual", createdBy: ctx.actor.email, deploy: r.deploy ?? true });
    await audit(ctx, tx, { orgId: s.orgId, action: "build.create", target: { type: "service", id: s.id, name: s.name }, fields: Object.keys(r).sort() });
    return b;
  });
  return buildView(row);
}

/** POST …/builds/{id}/cancel: a queued build never starts; a running one is stopped on the engine (202). */
export async function cancelBuild({ ctx, envId, name, id }: { ctx: Ctx; envId: string; name: string; id: string }): Promise<BuildView> {
  const s = await buildService(ctx, envId, name, "build.write");
  const b = await findBuild(ctx, s.id, id);
  const row = await ctx.db.transaction(async (tx) => {
    const [r] = await tx
      .update(build)
      .set({ cancelRequestedAt: new Date() })
      .where(and(eq(build.id, b.id), inArray(build.status, ["queued", "running"])))
      .returning();
    if (!r) throw new LevelrailError("conflict", `build ${b.id} has ${b.status === "superseded" ? "been superseded" : b.status}; there is nothing to cancel`);
    await notifyDesired(tx, buildKey(b.id));
    await audit(ctx, tx, { orgId: s.orgId, action: "build.cancel", target: { type: "build", id: b.id, name: s.name } });
    return r;
  });
  return buildView(row);
}
