import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import { user } from "@levelrail/db/schema/auth";
import { invitation } from "@levelrail/db/schema/invitations";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { INVITATION_TTL_MS, inviteInput } from "@levelrail/spec/members";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, MAX_LIST_ROWS, bounded, isUuid, parse } from "../context";
import type { InviteMailer } from "./invite-mail";
import { forbidden, requireManager } from "./member-guard";
import { audit } from "../audit/record";

/** A pending invitation as the API answers it: never its token or the token's hash. */
export interface InvitationView {
  id: string;
  email: string;
  role: string;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
}

/** What inviting answers: the link only when it was not mailed (shown once, never stored). */
export interface InviteResult {
  invitation: InvitationView;
  emailed: boolean;
  /** The single-use link, when it was not mailed (no SMTP settings, or sending failed). */
  link: string | null;
  /** Why mailing failed, when it did (the link is then answered instead). */
  emailError: string | null;
}

/** How an invitation reaches the invitee: the panel's URL for the link, and the installation's mailer if it has one. */
export interface InviteDelivery {
  publicUrl: string;
  mailer: InviteMailer | null;
}

export const hashInvitationToken = (token: string) => createHash("sha256").update(token).digest("hex");

const toView = (row: typeof invitation.$inferSelect, invitedBy: string | null): InvitationView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  invitedBy,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
});

const pending = (now: Date) => and(isNull(invitation.acceptedAt), isNull(invitation.revokedAt), gt(invitation.expiresAt, now));

/**
 * Invites `email` into the organization with `role` (owner or admin; only an owner invites an
 * owner). A member's address is a 409. An earlier pending invitation of the same address is
 * revoked, so one link works at a time. The link is mailed when the installation has SMTP
 * settings, and otherwise answered once.
 */
export async function inviteMember({ ctx, orgId, input: raw, delivery }: { ctx: Ctx; orgId: string; input: unknown; delivery: InviteDelivery }): Promise<InviteResult> {
  const { email, role } = parse(inviteInput, raw);
  const token = randomBytes(32).toString("base64url");
  const now = new Date();
  const { row, orgName } = await ctx.db.transaction(async (tx) => {
    const mine = await requireManager(tx, ctx, orgId, "inviting members");
    if (role === "owner" && mine !== "owner") throw forbidden("only an owner may invite an owner");
    const [member] = await tx
      .select({ id: user.id })
      .from(membership)
      .innerJoin(user, eq(user.id, membership.userId))
      .where(and(eq(membership.orgId, orgId), eq(user.email, email)));
    if (member) throw new LevelrailError("conflict", `${email} is a member of this organization already`, { field: "email" });
    await tx
      .update(invitation)
      .set({ revokedAt: now })
      .where(and(eq(invitation.orgId, orgId), eq(invitation.email, email), pending(now)));
    const [inserted] = await tx
      .insert(invitation)
      .values({ orgId, email, role, tokenHash: hashInvitationToken(token), invitedBy: ctx.actor.userId, createdAt: now, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS) })
      .returning();
    const [org] = await tx.select({ name: organization.name }).from(organization).where(eq(organization.id, orgId));
    if (!inserted || !org) throw new Error("insert returned nothing");
    await audit(ctx, tx, { orgId, action: "invitation.create", target: { type: "invitation", id: inserted.id, name: email }, fields: ["email", "role"] });
    return { row: inserted, orgName: org.name };
  });
  const link = `${delivery.publicUrl.replace(/\/+$/, "")}/invite/${token}`;
  const view = toView(row, ctx.actor.email);
  if (!delivery.mailer) return { invitation: view, emailed: false, link, emailError: null };
  try {
    await delivery.mailer.send({
      to: email,
      subject: `You are invited to ${orgName} on Levelrail`,
      text: [
        `${ctx.actor.email} invites you to the organization ${orgName} on Levelrail, as ${role}.`,
        "",
        `Accept: ${link}`,
        "",
        `The link works once and until ${row.expiresAt.toUTCString()}. If you did not expect it, ignore this message.`,
      ].join("\n"),
    });
    return { invitation: view, emailed: true, link: null, emailError: null };
  } catch (err) {
    return { invitation: view, emailed: false, link, emailError: err instanceof Error ? err.message : "sending failed" };
  }
}

/** The organization's pending invitations (not accepted, revoked or expired), newest first (owner or admin). */
export async function listInvitations({ ctx, orgId }: { ctx: Ctx; orgId: string }): Promise<InvitationView[]> {
  await requireManager(ctx.db, ctx, orgId, "listing invitations");
  const rows = await ctx.db
    .select({ row: invitation, invitedBy: user.email })
    .from(invitation)
    .leftJoin(user, eq(user.id, invitation.invitedBy))
    .where(and(eq(invitation.orgId, orgId), pending(new Date())))
    .orderBy(desc(invitation.createdAt))
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "invitations", "revoke the ones no longer wanted").map((r) => toView(r.row, r.invitedBy));
}

/** Revokes a pending invitation (owner or admin): its link stops working. Unknown: 404; used already: 409. */
export async function revokeInvitation({ ctx, orgId, id }: { ctx: Ctx; orgId: string; id: string }): Promise<void> {
  await requireManager(ctx.db, ctx, orgId, "revoking invitations");
  const notFound = new LevelrailError("not_found", "invitation not found");
  if (!isUuid(id)) throw notFound;
  const [row] = await ctx.db.select().from(invitation).where(and(eq(invitation.id, id), eq(invitation.orgId, orgId)));
  if (!row) throw notFound;
  if (row.acceptedAt) throw new LevelrailError("conflict", "this invitation was accepted already; remove the member instead");
  if (row.revokedAt) return;
  await ctx.db.transaction(async (tx) => {
    await tx.update(invitation).set({ revokedAt: new Date() }).where(and(eq(invitation.id, id), isNull(invitation.acceptedAt)));
    await audit(ctx, tx, { orgId, action: "invitation.revoke", target: { type: "invitation", id, name: row.email } });
  });
}
