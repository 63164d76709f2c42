import { and, eq } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import type { Ctx } from "../context";
import type { SecretsKit } from "../env/sources";
import { deployService } from "../release/deploy";

/**
 * Deploys an image a build made through the one deploy verb, as `build:<id>` (the release's
 * `createdBy`, the audit entry's worker actor): the service's image becomes the built one and a
 * release is recorded and reconciled like any deploy, so rollback and promote reuse its image id.
 */
export async function deployBuilt(db: Db, kit: SecretsKit, b: { buildId: string; orgId: string; serviceId: string; image: string }): Promise<string> {
  const [s] = await db
    .select({ name: service.name, environmentId: service.environmentId })
    .from(service)
    .where(and(eq(service.id, b.serviceId), eq(service.orgId, b.orgId)));
  if (!s) throw new LevelrailError("not_found", "the built service no longer exists");
  const who = `build:${b.buildId}`;
  // The build acts for its organization with the deploy right only it was given (a build is asked for by someone who may deploy).
  const ctx: Ctx = {
    db,
    kit,
    actor: { userId: who, email: who, orgIds: [b.orgId], memberships: [{ orgId: b.orgId, role: "developer", projectId: null }] },
    audit: { actor: { type: "worker", id: who, name: who }, ip: null },
  };
  const r = await deployService({ ctx, envId: s.environmentId, name: s.name, input: { image: b.image } });
  return r.id;
}
