import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { endAllSessions, endOtherSessions, endSession, resetSecondFactor } from "@levelrail/auth/account";
import { user } from "@levelrail/db/schema/auth";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { LevelrailError } from "@levelrail/spec/errors";
import { audit } from "../audit/record";
import { type Ctx, orgOf, parse } from "../context";

/**
 * The organization's security settings and an owner's actions on a member's sign-in: reset their
 * second factor (a lost device), sign them out everywhere. Owners only.
 * (When the role model lands these become actions of its permission table: `org.security`.)
 */

export interface MemberSignInView {
  userId: string;
  email: string;
  role: string;
  twoFactorEnabled: boolean;
}

export interface OrgSecurityView {
  orgId: string;
  require2fa: boolean;
  /** Whether the caller is an owner (who may change this and act on members' sign-in). */
  owner: boolean;
  /** The members and whether each has a second factor: owners only (empty for anyone else). */
  members: MemberSignInView[];
}

async function isOwner(ctx: Ctx, orgId: string): Promise<boolean> {
  const [m] = await ctx.db
    .select({ role: membership.role })
    .from(membership)
    .where(and(eq(membership.orgId, orgId), eq(membership.userId, ctx.actor.userId)));
  return m?.role === "owner";
}

async function requireOwner(ctx: Ctx, orgId: string | undefined): Promise<string> {
  const id = orgOf(ctx, orgId);
  if (!(await isOwner(ctx, id))) throw new LevelrailError("forbidden", "only an owner of the organization may do this");
  return id;
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
  const owner = await isOwner(ctx, id);
  const members = owner
    ? await ctx.db
        .select({ userId: user.id, email: user.email, role: membership.role, twoFactorEnabled: user.twoFactorEnabled })
        .from(membership)
        .innerJoin(user, eq(user.id, membership.userId))
        .where(eq(membership.orgId, id))
        .orderBy(user.email)
        .limit(1000)
    : [];
  return { orgId: id, require2fa: row.require2fa, owner, members };
}

const securityInput = z.strictObject({ require2fa: z.boolean() });

/**
 * `require2fa`: members without a second factor are sent to enrol before they see this
 * organization's pages or reach its API with their session (API tokens are not affected).
 * An owner turning it on without one of their own is refused: they would lock themselves out.
 */
export async function setOrgSecurity({ ctx, orgId, input }: { ctx: Ctx; orgId: string; input: unknown }): Promise<OrgSecurityView> {
  const id = await requireOwner(ctx, orgId);
  const { require2fa } = parse(securityInput, input);
  if (require2fa) {
    const [me] = await ctx.db.select({ enabled: user.twoFactorEnabled }).from(user).where(eq(user.id, ctx.actor.userId));
    if (!me?.enabled) throw new LevelrailError("invalid_input", "require2fa: enrol a second factor yourself first (Account)", { field: "require2fa" });
  }
  await ctx.db.transaction(async (tx) => {
    const [org] = await tx.update(organization).set({ require2fa }).where(eq(organization.id, id)).returning({ name: organization.name });
    await audit(ctx, tx, { orgId: id, action: "organization.security", target: { type: "organization", id, name: org?.name ?? null }, fields: ["require2fa"] });
  });
  return getOrgSecurity({ ctx, orgId: id });
}

/** A lost device: the member's second factor is removed; they sign in with their password and enrol again. */
export async function resetMemberSecondFactor({ ctx, orgId, userId }: { ctx: Ctx; orgId: string; userId: string }): Promise<{ userId: string; hadSecondFactor: boolean }> {
  const id = await requireOwner(ctx, orgId);
  const member = await memberOf(ctx, id, userId);
  const hadSecondFactor = await ctx.db.transaction(async (tx) => {
    const had = await resetSecondFactor(tx, member.id);
    await audit(ctx, tx, { orgId: id, action: "member.reset-second-factor", target: { type: "user", id: member.id, name: member.email } });
    return had;
  });
  return { userId: member.id, hadSecondFactor };
}

/** Ends every session of the member (every browser signs in again); their API tokens keep working. */
export async function signOutMember({ ctx, orgId, userId }: { ctx: Ctx; orgId: string; userId: string }): Promise<{ userId: string; sessionsEnded: number }> {
  const id = await requireOwner(ctx, orgId);
  const member = await memberOf(ctx, id, userId);
  const sessionsEnded = await ctx.db.transaction(async (tx) => {
    const ended = await endAllSessions(tx, member.id);
    await audit(ctx, tx, { orgId: id, action: "member.sign-out", target: { type: "user", id: member.id, name: member.email } });
    return ended;
  });
  return { userId: member.id, sessionsEnded };
}

/** Ends one of the caller's own sessions (someone else's is a 404); recorded under no organization. */
export async function endOwnSession({ ctx, id }: { ctx: Ctx; id: string }): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await endSession(tx, ctx.actor.userId, id);
    await audit(ctx, tx, { orgId: null, action: "session.end", target: { type: "user", id: ctx.actor.userId, name: ctx.actor.email } });
  });
}

/** Ends every session of the caller but this one (with an API token: every one); recorded under no organization. */
export async function endOwnOtherSessions({ ctx }: { ctx: Ctx }): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const ended = await endOtherSessions(tx, ctx.actor.userId, ctx.actor.sessionId);
    await audit(ctx, tx, { orgId: null, action: "session.end-others", target: { type: "user", id: ctx.actor.userId, name: ctx.actor.email } });
    return ended;
  });
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { securityInput as securityInput };
