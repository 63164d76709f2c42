import { and, count, eq, gt, isNull, ne, or } from "drizzle-orm";
import { z } from "zod";
import { endAllSessions, endOtherSessions, endSession, resetSecondFactor } from "@levelrail/auth/account";
import { session, user } from "@levelrail/db/schema/auth";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { LevelrailError } from "@levelrail/spec/errors";
import { audit } from "../audit/record";
import { type Ctx, orgOf, parse } from "../context";
import { authorize, decide, refuseReadOnly } from "./permissions";

/**
 * The organization's sign-in security setting and an owner's actions on a member's sign-in: reset
 * their second factor (a lost device), sign them out everywhere: the permission table's
 * `orgSecurity.manage` (owners).
 */

export interface OrgSecurityView {
  orgId: string;
  require2fa: boolean;
  /**
   * Whether the caller is an owner (`orgSecurity.manage`), who may change this and act on members'
   * sign-in. Each member's second factor is on the members list (`listMembers`), for owners.
   */
  owner: boolean;
}

/** A member of the organization, by user id; 404 for anyone else (or a malformed id). */
async function memberOf(ctx: Ctx, orgId: string, id: string): Promise<{ id: string; email: string }> {
  if (id.length === 0 || id.length > 200) throw new LevelrailError("not_found", "member not found", { field: "userId" });
  const [row] = await ctx.db
    .select({ id: user.id, email: user.email })
    .from(membership)
    .innerJoin(user, eq(user.id, membership.userId))
    .where(and(eq(membership.orgId, orgId), eq(membership.userId, id)));
  if (!row) throw new LevelrailError("not_found", "member not found", { field: "userId" });
  return row;
}

export async function getOrgSecurity({ ctx, orgId }: { ctx: Ctx; orgId: string }): Promise<OrgSecurityView> {
  const id = orgOf(ctx, orgId);
  const [row] = await ctx.db.select({ require2fa: organization.require2fa }).from(organization).where(eq(organization.id, id));
  if (!row) throw new LevelrailError("not_found", "organization not found");
  // What `authorize` would answer, so the page enables exactly what the verbs allow.
  const owner = decide(ctx.actor.memberships, ctx.actor.orgIds, "orgSecurity.manage", { orgId: id }) === "ok";
  return { orgId: id, require2fa: row.require2fa, owner };
}

const securityInput = z.strictObject({ require2fa: z.boolean() });

/**
 * `require2fa`: members without a second factor are sent to enrol before they see this
 * organization's pages or reach its API with their session (API tokens are not affected).
 * An owner turning it on without one of their own is refused: they would lock themselves out.
 */
export async function setOrgSecurity({ ctx, orgId, input }: { ctx: Ctx; orgId: string; input: unknown }): Promise<OrgSecurityView> {
  authorize(ctx, "orgSecurity.manage", { orgId });
  const { require2fa } = parse(securityInput, input);
  if (require2fa) {
    const [me] = await ctx.db.select({ enabled: user.twoFactorEnabled }).from(user).where(eq(user.id, ctx.actor.userId));
    if (!me?.enabled) throw new LevelrailError("invalid_input", "require2fa: enrol a second factor yourself first (Account)", { field: "require2fa" });
  }
  await ctx.db.transaction(async (tx) => {
    const [org] = await tx.update(organization).set({ require2fa }).where(eq(organization.id, orgId)).returning({ name: organization.name });
    await audit(ctx, tx, { orgId, action: "organization.security", target: { type: "organization", id: orgId, name: org?.name ?? null }, fields: ["require2fa"] });
  });
  return getOrgSecurity({ ctx, orgId });
}

/** How many organizations the user belongs to (this one included). */
async function organizationsOf(ctx: Ctx, userId: string): Promise<number> {
  const [row] = await ctx.db.select({ n: count() }).from(membership).where(eq(membership.userId, userId));
  return row?.n ?? 0;
}

/**
 * A lost device: the member's second factor is removed; they sign in with their password and enrol
 * again. The factor guards the user in every organization they belong to, so for a member who also
 * belongs to another organization an owner of this one alone may not remove it: that needs an
 * installation administrator (403 saying so, nothing written; `levelrail user reset-2fa` on the host
 * does it too).
 */
export async function resetMemberSecondFactor({ ctx, orgId, userId }: { ctx: Ctx; orgId: string; userId: string }): Promise<{ userId: string; hadSecondFactor: boolean }> {
  authorize(ctx, "orgSecurity.manage", { orgId });
  const member = await memberOf(ctx, orgId, userId);
  if (ctx.actor.installationAdmin !== true && (await organizationsOf(ctx, member.id)) > 1) {
    throw new LevelrailError(
      "forbidden",
      `${member.email} belongs to other organizations too, where this second factor guards them as well: resetting it needs an installation administrator (levelrail user reset-2fa --email E on the host)`,
      { field: "userId" },
    );
  }
  const hadSecondFactor = await ctx.db.transaction(async (tx) => {
    const had = await resetSecondFactor(tx, member.id);
    await audit(ctx, tx, { orgId, action: "member.reset-second-factor", target: { type: "user", id: member.id, name: member.email } });
    return had;
  });
  return { userId: member.id, hadSecondFactor };
}

/**
 * Signs the member out: every browser signs in again; their API tokens keep working. An owner acts on
 * this organization's sessions only: a member of this organization alone loses every session; a
 * member who also belongs to another organization loses the sessions that act in this one only (those
 * its single sign-on opened) and keeps the others, which reach their other organizations too
 * (`sessionsKept` counts them; an installation administrator ends them all, and removing the member
 * from this organization cuts their access here at once).
 */
export async function signOutMember({ ctx, orgId, userId }: { ctx: Ctx; orgId: string; userId: string }): Promise<{ userId: string; sessionsEnded: number; sessionsKept: number }> {
  authorize(ctx, "orgSecurity.manage", { orgId });
  const member = await memberOf(ctx, orgId, userId);
  const everywhere = ctx.actor.installationAdmin === true || (await organizationsOf(ctx, member.id)) <= 1;
  return ctx.db.transaction(async (tx) => {
    const ended = everywhere
      ? await endAllSessions(tx, member.id)
      : (await tx.delete(session).where(and(eq(session.userId, member.id), eq(session.ssoOrgId, orgId))).returning({ id: session.id })).length;
    const [kept] = everywhere
      ? [{ n: 0 }]
      : await tx
          .select({ n: count() })
          .from(session)
          .where(and(eq(session.userId, member.id), gt(session.expiresAt, new Date()), or(isNull(session.ssoOrgId), ne(session.ssoOrgId, orgId))));
    await audit(ctx, tx, { orgId, action: "member.sign-out", target: { type: "user", id: member.id, name: member.email } });
    return { userId: member.id, sessionsEnded: ended, sessionsKept: kept?.n ?? 0 };
  });
}

/** Ends one of the caller's own sessions (someone else's is a 404); recorded under no organization. */
export async function endOwnSession({ ctx, id }: { ctx: Ctx; id: string }): Promise<void> {
  refuseReadOnly(ctx.actor, "ending a session");
  await ctx.db.transaction(async (tx) => {
    await endSession(tx, ctx.actor.userId, id, ctx.actor.ssoOrgId);
    await audit(ctx, tx, { orgId: null, action: "session.end", target: { type: "user", id: ctx.actor.userId, name: ctx.actor.email } });
  });
}

/** Ends every session of the caller but this one (with an API token: every one); recorded under no organization. */
export async function endOwnOtherSessions({ ctx }: { ctx: Ctx }): Promise<number> {
  refuseReadOnly(ctx.actor, "ending sessions");
  return ctx.db.transaction(async (tx) => {
    const ended = await endOtherSessions(tx, ctx.actor.userId, ctx.actor.sessionId, ctx.actor.ssoOrgId);
    await audit(ctx, tx, { orgId: null, action: "session.end-others", target: { type: "user", id: ctx.actor.userId, name: ctx.actor.email } });
    return ended;
  });
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { securityInput as securityInput };
