import { z } from "zod";
import { MEMBER_ROLES } from "./lists";

export { MANAGER_ROLES, MEMBER_ROLES } from "./lists";

export const memberRole = z.enum(MEMBER_ROLES, { error: "must be owner, admin, developer or viewer" });
export type MemberRole = z.infer<typeof memberRole>;

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** `POST /api/v1/orgs/{orgId}/invitations`. */
export const inviteInput = z
  .object({
    email: z.email("must be an email address").max(254).transform((e) => e.toLowerCase()),
    role: memberRole,
  })
  .strict();

/** `PATCH /api/v1/orgs/{orgId}/members/{userId}`. */
export const memberRoleInput = z.object({ role: memberRole }).strict();

/** The token of an invitation link (`/invite/<token>`). */
export const invitationToken = z.string().min(20, "is not an invitation token").max(200, "is not an invitation token").regex(/^[A-Za-z0-9_-]+$/, "is not an invitation token");

/**
 * `POST /api/v1/invitations/accept`: signed in, `{token}` makes the caller a member; signed out,
 * `{token, password}` creates the invited address's account first.
 */
export const acceptInput = z
  .object({
    token: invitationToken,
    password: z.string().min(8, "must be at least 8 characters").max(128).optional(),
  })
  .strict();
