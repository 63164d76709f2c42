import { and, count, eq, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { membership } from "@levelrail/db/schema/orgs";
import type { MemberRole } from "@levelrail/spec/members";
import type { Role } from "@levelrail/spec/roles";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, orgOf } from "../context";
import { allows } from "./permissions";

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * A role as the membership table stores it. The column is text; its TypeScript enum is widened to
 * the four roles of docs/operating/teams-and-sso.md#roles by the role model, after which this is the identity.
 */
export const storedRole = (role: MemberRole) => role as typeof membership.$inferInsert.role;

/** The caller's role in `orgId` (404 when they are not a member, as for an organization that does not exist). */
export async function callerRole(db: Db | Tx, ctx: Ctx, orgId: string): Promise<Role> {
  orgOf(ctx, orgId);
  const [row] = await db
    .select({ role: membership.role, projectId: membership.projectId })
    .from(membership)
    .where(and(eq(membership.orgId, orgId), eq(membership.userId, ctx.actor.userId)));
  // A role on one project only sees nothing of the organization's own (its members included).
  if (!row || row.projectId !== null) throw new LevelrailError("not_found", "organization not found", { field: "orgId" });
  // A read-only token acts as a viewer (org/permissions.ts).
  return ctx.actor.readOnly ? "viewer" : row.role;
}

/** The caller's role when it is owner or admin; a 403 naming the roles that may otherwise. */
export async function requireManager(db: Db | Tx, ctx: Ctx, orgId: string, what: string): Promise<Role> {
  const role = await callerRole(db, ctx, orgId);
  if (!allows(role, "member.manage")) throw forbidden(`${what} needs the owner or admin role; you are ${article(role)}`);
  return role;
}

export const forbidden = (message: string) => new LevelrailError("forbidden", message);

const article = (role: string) => `${/^[aeiou]/.test(role) ? "an" : "a"} ${role}`;

/**
 * Serializes the changes of one organization's members (role changes, removals, leaving, accepting),
 * so two owners demoting each other at once cannot leave it without one.
 */
export async function lockMembers(tx: Tx, orgId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`levelrail.members:${orgId}`}))`);
}

/** How many owners the organization has (inside the members lock). */
export async function ownerCount(tx: Tx, orgId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(membership)
    .where(and(eq(membership.orgId, orgId), eq(membership.role, "owner")));
  return row?.n ?? 0;
}

export const lastOwner = (who: string) =>
  new LevelrailError(
    "conflict",
    `${who} the last owner of this organization: make another member an owner first (an organization always keeps one)`,
    { field: "role" },
  );
