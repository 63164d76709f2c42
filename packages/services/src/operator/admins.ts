import { asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { user } from "@levelrail/db/schema/auth";
import { installationAdmin } from "@levelrail/db/schema/operator";
import { LevelrailError } from "@levelrail/spec/errors";
import { type AuditSource, cliSource, recordAudit } from "../audit/record";

/**
 * The installation's administrators (`levelrail admin grant|revoke|list` on the host): the only
 * ones who change what belongs to the installation rather than to one organization (its nodes).
 * The host's CLI is the only way in: no organization role, and no API route, grants it. Each grant
 * and revoke is audited under no organization.
 */

export interface InstallationAdminView {
  userId: string;
  email: string;
  grantedAt: string;
  grantedBy: string | null;
}

async function userByEmail(db: Db | Tx, email: string): Promise<{ id: string; email: string }> {
  const [u] = await db.select({ id: user.id, email: user.email }).from(user).where(eq(user.email, email.trim().toLowerCase()));
  if (!u) throw new LevelrailError("not_found", `no operator with email ${email}`, { field: "email" });
  return u;
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** Makes the user with `email` an installation administrator; answers whether they were one already. */
export async function grantInstallationAdmin(db: Db, email: string, source: AuditSource = cliSource()): Promise<{ email: string; already: boolean }> {
  return db.transaction(async (tx) => {
    const u = await userByEmail(tx, email);
    const added = await tx.insert(installationAdmin).values({ userId: u.id, grantedBy: source.actor.name }).onConflictDoNothing().returning({ userId: installationAdmin.userId });
    if (added.length > 0) await recordAudit(tx, source, { orgId: null, action: "installation-admin.grant", target: { type: "user", id: u.id, name: u.email } });
    return { email: u.email, already: added.length === 0 };
  });
}

/**
 * The first operator of an installation (`levelrail admin create` when no organization exists yet)
 * becomes its administrator, in the caller's transaction or on its own.
 */
export async function grantFirstOperator(db: Db | Tx, userId: string): Promise<void> {
  await db.insert(installationAdmin).values({ userId, grantedBy: "the first operator" }).onConflictDoNothing();
}

/**
 * Takes the role from the user with `email` (404 naming `email` for an unknown user, 409 when they
 * do not hold it). The last administrator is kept (409): the installation's nodes would have nobody.
 */
export async function revokeInstallationAdmin(db: Db, email: string, source: AuditSource = cliSource()): Promise<{ email: string }> {
  return db.transaction(async (tx) => {
    const u = await userByEmail(tx, email);
    // One revoke at a time: two at once could each see the other administrator and leave none.
    await tx.execute(sql`LOCK TABLE installation_admin IN SHARE ROW EXCLUSIVE MODE`);
    const [held] = await tx.select({ userId: installationAdmin.userId }).from(installationAdmin).where(eq(installationAdmin.userId, u.id));
    if (!held) throw new LevelrailError("conflict", `${u.email} is not an installation administrator`, { field: "email" });
    const [n] = await tx.select({ n: count() }).from(installationAdmin);
    if ((n?.n ?? 0) <= 1) {
      throw new LevelrailError("conflict", `${u.email} is the last installation administrator: grant another first (levelrail admin grant --email E)`, { field: "email" });
    }
    await tx.delete(installationAdmin).where(eq(installationAdmin.userId, u.id));
    await recordAudit(tx, source, { orgId: null, action: "installation-admin.revoke", target: { type: "user", id: u.id, name: u.email } });
    return { email: u.email };
  });
}

/** Every installation administrator, oldest grant first. */
export async function listInstallationAdmins(db: Db): Promise<InstallationAdminView[]> {
  const rows = await db
    .select({ userId: installationAdmin.userId, email: user.email, grantedAt: installationAdmin.grantedAt, grantedBy: installationAdmin.grantedBy })
    .from(installationAdmin)
    .innerJoin(user, eq(user.id, installationAdmin.userId))
    .orderBy(asc(installationAdmin.grantedAt), asc(user.email))
    .limit(1000);
  return rows.map((r) => ({ ...r, grantedAt: r.grantedAt.toISOString() }));
}
