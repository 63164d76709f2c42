import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { actorFor } from "@levelrail/auth";
import type { Db } from "@levelrail/db/client";
import { user } from "@levelrail/db/schema/auth";
import { membership, organization } from "@levelrail/db/schema/orgs";
import type { Role } from "@levelrail/spec/roles";
import { bootstrapOrg } from "@levelrail/services/org/create";
import type { Ctx } from "@levelrail/services/context";
import type { SecretsKit } from "@levelrail/services/env/sources";
import { Keyring, deriveKey } from "@levelrail/secrets";

/** Keys for tests: a random master key held in memory, never a file. */
export function testKit(masterKey = randomBytes(32).toString("base64")): SecretsKit & { masterKey: string } {
  const keyring = new Keyring({ envKey: masterKey, dataDir: "/nonexistent" });
  return { keyring, fingerprintKey: deriveKey(Buffer.from(masterKey, "base64"), "fingerprint"), masterKey };
}

/** A user with their own organization (and its default/production environment, `envId`), so suites never collide. */
export async function seedOrg(
  db: Db,
  label: string,
  kit: SecretsKit = testKit(),
): Promise<Ctx & { orgId: string; projectId: string; envId: string; cleanup(): Promise<void> }> {
  const suffix = randomBytes(4).toString("hex");
  const id = `test-${label}-${suffix}`;
  const email = `${label}-${suffix}@test.levelrail.local`;
  await db.insert(user).values({ id, name: label, email, emailVerified: true });
  const { org, project, environment } = await bootstrapOrg(db, id, `${label}-${suffix}`);
  const actor = await actorFor(db, id, email);
  return {
    db,
    actor,
    kit,
    orgId: org.id,
    projectId: project.id,
    envId: environment!.id,
    async cleanup() {
      await db.delete(organization).where(eq(organization.id, org.id));
      await db.delete(user).where(eq(user.id, id));
    },
  };
}

/** A random DNS-label-safe suffix for names. */
export const uniq = () => randomBytes(3).toString("hex");

/**
 * Another user made a member of `org` with `role` (on the whole organization, or on `projectId`
 * only), written straight to the membership table: tests of the role model need every role without
 * going through invitations. Answers the member's own Ctx.
 */
export async function seedMember(
  db: Db,
  org: Pick<Ctx, "kit"> & { orgId: string },
  label: string,
  role: Role,
  projectId: string | null = null,
): Promise<Ctx & { userId: string; email: string }> {
  const suffix = randomBytes(4).toString("hex");
  const id = `test-${label}-${suffix}`;
  const email = `${label}-${suffix}@test.levelrail.local`;
  await db.insert(user).values({ id, name: label, email, emailVerified: true });
  await db.insert(membership).values({ orgId: org.orgId, userId: id, role, projectId });
  return { db, actor: await actorFor(db, id, email), kit: org.kit, userId: id, email };
}
