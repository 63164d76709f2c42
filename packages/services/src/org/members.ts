import { and, eq } from "drizzle-orm";
import { user } from "@levelrail/db/schema/auth";
import { membership } from "@levelrail/db/schema/orgs";
import { memberRoleInput } from "@levelrail/spec/members";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, MAX_LIST_ROWS, bounded, parse } from "../context";
import { allows, canAssign, refuseReadOnly } from "./permissions";
import { callerRole, forbidden, lastOwner, lockMembers, ownerCount, requireManager, storedRole } from "./member-guard";
import { audit, emailOf } from "../audit/record";

/** A member of an organization as the API answers it. */
export interface MemberView {
  userId: string;
  email: string;
  name: string;
  role: string;
  joinedAt: string;
  /** Whether this is the caller. */
  you: boolean;
  /**
   * Whether the member has a second factor: answered to a caller who may manage the organization's
   * sign-in security (`orgSecurity.manage`: owners), who resets it or signs the member out here;
   * null for anyone else.
   */
  twoFactorEnabled: boolean | null;
}

const notAMember = () => new LevelrailError("not_found", "member not found", { field: "userId" });

/** `me` names the caller. */
const resolveUser = (ctx: Ctx, userId: string) => (userId === "me" ? ctx.actor.userId : userId);

/** Every member of the organization, oldest first; any member may list them (owners with their second factor). */
export async function listMembers({ ctx, orgId }: { ctx: Ctx; orgId: string }): Promise<MemberView[]> {
  const signInSecurity = allows(await callerRole(ctx.db, ctx, orgId), "orgSecurity.manage");
  const rows = await ctx.db
    .select({ userId: membership.userId, email: user.email, name: user.name, role: membership.role, joinedAt: membership.createdAt, twoFactorEnabled: user.twoFactorEnabled })
    .from(membership)
    .innerJoin(user, eq(user.id, membership.userId))
    .where(eq(membership.orgId, orgId))
    .orderBy(membership.createdAt, user.email)
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "members", "remove the ones who left").map((r) => ({
    userId: r.userId,
    email: r.email,
    name: r.name,
    role: r.role,
    joinedAt: r.joinedAt.toISOString(),
    you: r.userId === ctx.actor.userId,
    twoFactorEnabled: signInSecurity ? r.twoFactorEnabled : null,
  }));
}

/**
 * Changes a member's role (owner or admin). Only an owner grants or takes away ownership (so a
 * member making themselves owner is a 403); the last owner cannot be demoted (409).
 */
export async function changeMemberRole({ ctx, orgId, userId: rawUserId, input: raw }: { ctx: Ctx; orgId: string; userId: string; input: unknown }): Promise<MemberView> {
  const { role } = parse(memberRoleInput, raw);
  const userId = resolveUser(ctx, rawUserId);
  await ctx.db.transaction(async (tx) => {
    await lockMembers(tx, orgId);
    const mine = await requireManager(tx, ctx, orgId, "changing a member's role");
    const [target] = await tx
      .select({ role: membership.role })
      .from(membership)
      .where(and(eq(membership.orgId, orgId), eq(membership.userId, userId)))
      .for("update");
    if (!target) throw notAMember();
    if (target.role === role) return;
    if (role === "owner" && userId === ctx.actor.userId) throw forbidden("you cannot make yourself an owner; another owner can");
    // canAssign (org/permissions.ts) for the role given and the role taken away.
    if (!canAssign(mine, role) || !canAssign(mine, target.role)) throw forbidden("only an owner may grant or take away the owner role");
    if (target.role === "owner" && (await ownerCount(tx, orgId)) <= 1) throw lastOwner(userId === ctx.actor.userId ? "you are" : "this member is");
    await tx
      .update(membership)
      .set({ role: storedRole(role) })
      .where(and(eq(membership.orgId, orgId), eq(membership.userId, userId)));
    await audit(ctx, tx, { orgId, action: "member.update", target: { type: "user", id: userId, name: await emailOf(tx, userId) }, fields: ["role"] });
  });
  const members = await listMembers({ ctx, orgId });
  const changed = members.find((m) => m.userId === userId);
  if (!changed) throw notAMember();
  return changed;
}

/**
 * Removes a member (owner or admin; only an owner removes an owner), or the caller themselves
 * (`userId` is theirs or `me`: leaving, which any member may do). The last owner can do neither
 * (409). Their sessions and API tokens lose this organization at once: every request reads the
 * caller's memberships afresh (`actorFor`), and tokens belong to the user, not to one organization.
 */
export async function removeMember({ ctx, orgId, userId: rawUserId }: { ctx: Ctx; orgId: string; userId: string }): Promise<void> {
  refuseReadOnly(ctx.actor, "removing a member or leaving");
  const userId = resolveUser(ctx, rawUserId);
  const self = userId === ctx.actor.userId;
  await ctx.db.transaction(async (tx) => {
    await lockMembers(tx, orgId);
    const mine = self ? await callerRole(tx, ctx, orgId) : await requireManager(tx, ctx, orgId, "removing a member");
    const [target] = await tx
      .select({ role: membership.role })
      .from(membership)
      .where(and(eq(membership.orgId, orgId), eq(membership.userId, userId)))
      .for("update");
    if (!target) throw notAMember();
    if (target.role === "owner" && !self && mine !== "owner") throw forbidden("only an owner may remove an owner");
    if (target.role === "owner" && (await ownerCount(tx, orgId)) <= 1) throw lastOwner(self ? "you are" : "this member is");
    await tx.delete(membership).where(and(eq(membership.orgId, orgId), eq(membership.userId, userId)));
    await audit(ctx, tx, { orgId, action: self ? "member.leave" : "member.remove", target: { type: "user", id: userId, name: await emailOf(tx, userId) } });
  });
  if (self) ctx.actor.orgIds = ctx.actor.orgIds.filter((id) => id !== orgId);
}
