/**
 * The roles of a member of an organization (docs/operating/teams-and-sso.md#roles), weakest first. A membership holds one
 * role for the whole organization, or for one project only (`projectId`).
 */
export const ROLES = ["viewer", "developer", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

/** Its rank: a role may do whatever a role of a lower rank may. */
export const roleRank = (role: Role): number => ROLES.indexOf(role);

export const isRole = (value: unknown): value is Role => typeof value === "string" && (ROLES as readonly string[]).includes(value);

/** One membership of the caller: a role in an organization, on all of it (`projectId` null) or on one project. */
export interface Membership {
  orgId: string;
  role: Role;
  projectId: string | null;
}
