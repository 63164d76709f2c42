import { and, eq, ne } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { notifyDesired } from "@levelrail/db/notify";
import { build, type BuildTrigger } from "@levelrail/db/schema/git";
import { buildKey } from "@levelrail/spec/keys";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface BuildRequest {
  orgId: string;
  serviceId: string;
  /** The commit to build, or null to build what `ref` points to when the build starts. */
  commit: string | null;
  ref: string;
  trigger: BuildTrigger;
  createdBy: string;
  /** Deploy the image once built (default true). */
  deploy?: boolean;
}

/**
 * Queues a build of a service. Builds queue per service: a queued build of the same service that has
 * not started is superseded by this one, with a message naming it, never dropped silently (CapRover
 * #266). A running build is left alone; the controller starts this one after it. Run it inside the
 * caller's transaction: the build's key is notified when that transaction commits.
 */
export async function enqueueBuild(tx: Tx, r: BuildRequest): Promise<typeof build.$inferSelect> {
  const [row] = await tx
    .insert(build)
    .values({ orgId: r.orgId, serviceId: r.serviceId, commit: r.commit, ref: r.ref, trigger: r.trigger, createdBy: r.createdBy, deploy: r.deploy ?? true, message: "queued" })
    .returning();
  await tx
    .update(build)
    .set({ status: "superseded", finishedAt: new Date(), message: `superseded by build ${row!.id}${r.commit ? ` (${r.commit.slice(0, 12)})` : ""}, queued after it` })
    .where(and(eq(build.serviceId, r.serviceId), eq(build.status, "queued"), eq(build.orgId, r.orgId), ne(build.id, row!.id)));
  await notifyDesired(tx, buildKey(row!.id));
  return row!;
}
