import { and, eq } from "drizzle-orm";
import type { Actor } from "@levelrail/auth";
import type { Db } from "@levelrail/db/client";
import { user } from "@levelrail/db/schema/auth";
import { invitation } from "@levelrail/db/schema/invitations";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { acceptInput, invitationToken, memberRole } from "@levelrail/spec/members";
import { LevelrailError } from "@levelrail/spec/errors";
import { parse } from "../context";
import { hashInvitationToken } from "./invitations";
import { type Tx, lockMembers, storedRole } from "./member-guard";
import { refuseReadOnly } from "./permissions";
import { type AuditSource, recordAudit, sourceOf } from "../audit/record";

export type InvitationState = "pending" | "expired" | "accepted" | "revoked";

/** What the `/invite/<token>` page shows; `unknown` for a token that names nothing. */
export type InvitationLookup =
  | { state: "unknown" }
  | { state: InvitationState; orgId: string; orgName: string; email: string; role: string; expiresAt: string; hasAccount: boolean };

const stateOf = (row: typeof invitation.$inferSelect, now: number): InvitationState =>
  row.acceptedAt ? "accepted" : row.revokedAt ? "revoked" : row.expiresAt.getTime() <= now ? "expired" : "pending";

/** Why an invitation that is not pending cannot be accepted, in words for the page and the API. */
export function refusalOf(state: Exclude<InvitationState, "pending">): string {
  switch (state) {
    case "expired":
      return "this invitation has expired (links work for 7 days); ask an owner or admin of the organization for a new one";
    case "accepted":
      return "this invitation has been used already (each link works once); sign in, or ask for a new one";
    case "revoked":
      return "this invitation was revoked; ask an owner or admin of the organization for a new one";
  }
}

/** The invitation a link names, for the page (no caller needed: the token is the credential). */
export async function lookupInvitation(db: Db, token: string): Promise<InvitationLookup> {
  if (!invitationToken.safeParse(token).success) return { state: "unknown" };
  const [found] = await db
    .select({ row: invitation, orgName: organization.name })
    .from(invitation)
    .innerJoin(organization, eq(organization.id, invitation.orgId))
    .where(eq(invitation.tokenHash, hashInvitationToken(token)));
  if (!found) return { state: "unknown" };
  const [account] = await db.select({ id: user.id }).from(user).where(eq(user.email, found.row.email));
  const { row } = found;
  return {
    state: stateOf(row, Date.now()),
    orgId: row.orgId,
    orgName: found.orgName,
    email: row.email,
    role: row.role,
    expiresAt: row.expiresAt.toISOString(),
    hasAccount: account !== undefined,
  };
}

/** Locks the invitation a token names and checks it is pending: 404 unknown, 409 expired, used or revoked. */
async function claim(tx: Tx, token: string) {
  const [row] = await tx.select().from(invitation).where(eq(invitation.tokenHash, hashInvitationToken(token))).for("update");
  if (!row) throw new LevelrailError("not_found", "invitation not found: check that the whole link was copied", { field: "token" });
  const state = stateOf(row, Date.now());
  if (state !== "pending") throw new LevelrailError("conflict", refusalOf(state), { field: "token" });
  return row;
}

async function join(tx: Tx, row: typeof invitation.$inferSelect, userId: string, source: AuditSource): Promise<void> {
  await lockMembers(tx, row.orgId);
  const [member] = await tx
    .select({ role: membership.role })
    .from(membership)
    .where(and(eq(membership.orgId, row.orgId), eq(membership.userId, userId)));
  if (member) throw new LevelrailError("conflict", "you are a member of this organization already", { field: "token" });
  const role = memberRole.parse(row.role);
  await tx.insert(membership).values({ orgId: row.orgId, userId, role: storedRole(role) });
  await tx.update(invitation).set({ acceptedAt: new Date(), acceptedBy: userId }).where(eq(invitation.id, row.id));
  await recordAudit(tx, source, { orgId: row.orgId, action: "member.join", target: { type: "invitation", id: row.id, name: row.email }, fields: ["role"] });
}

export interface Accepted {
  orgId: string;
  role: string;
}

/**
 * The signed-in caller accepts an invitation sent to their address: they become a member with
 * its role, and the link stops working. Another address's invitation is a 403.
 */
export async function acceptInvitation({ db, actor, input: raw, source }: { db: Db; actor: Actor; input: unknown; source?: AuditSource }): Promise<Accepted> {
  refuseReadOnly(actor, "accepting an invitation");
  const { token } = parse(acceptInput, raw);
  const accepted = await db.transaction(async (tx) => {
    const row = await claim(tx, token);
    if (row.email !== actor.email.toLowerCase()) {
      throw new LevelrailError("forbidden", `this invitation was sent to ${row.email}; you are signed in as ${actor.email}: sign out and open the link again`, { field: "token" });
    }
    await join(tx, row, actor.userId, source ?? sourceOf({ actor }));
    return { orgId: row.orgId, role: row.role };
  });
  if (!actor.orgIds.includes(accepted.orgId)) actor.orgIds.push(accepted.orgId);
  return accepted;
}

/** Creates an account (the caller's: better-auth's hashing); throws a 409 when the address has one. */
export type CreateAccount = (email: string, password: string) => Promise<{ id: string }>;

/**
 * A signed-out visitor accepts: the invited address gets an account with `password`, then becomes
 * a member. An address that has an account already is a 409 (sign in, then accept). The account is
 * made only once the invitation was checked; if two requests race, the second finds the address
 * taken or the link used.
 */
export async function acceptBySignUp({ db, input: raw, createAccount, ip = null }: { db: Db; input: unknown; createAccount: CreateAccount; ip?: string | null }): Promise<Accepted & { email: string }> {
  const { token, password } = parse(acceptInput, raw);
  if (password === undefined) throw new LevelrailError("invalid_input", "password: is required to create your account (or sign in first)", { field: "password" });
  const found = await lookupInvitation(db, token);
  if (found.state === "unknown") throw new LevelrailError("not_found", "invitation not found: check that the whole link was copied", { field: "token" });
  if (found.state !== "pending") throw new LevelrailError("conflict", refusalOf(found.state), { field: "token" });
  if (found.hasAccount) throw new LevelrailError("conflict", `${found.email} has an account already: sign in, then accept the invitation`, { field: "token" });
  const account = await createAccount(found.email, password);
  return db.transaction(async (tx) => {
    const row = await claim(tx, token);
    await join(tx, row, account.id, { actor: { type: "user", id: account.id, name: row.email }, ip });
    return { orgId: row.orgId, role: row.role, email: row.email };
  });
}
