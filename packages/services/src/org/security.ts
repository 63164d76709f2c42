import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { endAllSessions, endOtherSessions, endSession, resetSecondFactor } from "@levelrail/auth/account";
import { user } from "@levelrail/db/schema/auth";
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

/** A lost device: the member's second factor is removed; they sign in with their password and enrol again. */
export async function resetMemberSecondFactor({ ctx, orgId, userId }: { ctx: Ctx; orgId: string; userId: string }): Promise<{ userId: string; hadSecondFactor: boolean }> {
  authorize(ctx, "orgSecurity.manage", { orgId });
  const member = await memberOf(ctx, orgId, userId);
  const hadSecondFactor = await ctx.db.transaction(async (tx) => {
    const had = await resetSecondFactor(tx, member.id);
    await audit(ctx, tx, { orgId, action: "member.reset-second-factor", target: { type: "user", id: member.id, name: member.email } });
    return had;
  });
  return { userId: member.id, hadSecondFactor };
}

/** Ends every session of the member (every browser signs in again); their API tokens keep working. */
export async function signOutMember({ ctx, orgId, userId }: { ctx: Ctx; orgId: string; userId: string }): Promise<{ userId: string; sessionsEnded: number }> {
  authorize(ctx, "orgSecurity.manage", { orgId });
  const member = await memberOf(ctx, orgId, userId);
  const sessionsEnded = await ctx.db.transaction(async (tx) => {
    const ended = await endAllSessions(tx, member.id);
    await audit(ctx, tx, { orgId, action: "member.sign-out", target: { type: "user", id: member.id, name: member.email } });
    return ended;
  });
  return { userId: member.id, sessionsEnded };
}

/** Ends one of the caller's own sessions (someone else's is a 404); recorded under no organization. */
export async function endOwnSession({ ctx, id }: { ctx: Ctx; id: string }): Promise<void> {
  refuseReadOnly(ctx.actor, "ending a session");
  await ctx.db.transaction(async (tx) => {
    await endSession(tx, ctx.actor.userId, id);
    await audit(ctx, tx, { orgId: null, action: "session.end", target: { type: "user", id: ctx.actor.userId, name: ctx.actor.email } });
  });
}

/** Ends every session of the caller but this one (with an API token: every one); recorded under no organization. */
export async function endOwnOtherSessions({ ctx }: { ctx: Ctx }): Promise<number> {
  refuseReadOnly(ctx.actor, "ending sessions");
  return ctx.db.transaction(async (tx) => {
    const ended = await endOtherSessions(tx, ctx.actor.userId, ctx.actor.sessionId);
    await audit(ctx, tx, { orgId: null, action: "session.end-others", target: { type: "user", id: ctx.actor.userId, name: ctx.actor.email } });
    return ended;
  });
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { securityInput as securityInput };
