// Response shapes of an organization's people and configuration (see schemas.ts): members,
// invitations, sign-in security, the account, backup targets and registry credentials (their
// secrets write-only: only a flag says one is set). Each pinned to its view type the same way.
import { z } from "zod";
import type { SecondFactorView } from "@levelrail/auth/account";
import type { listBackupTargets } from "@levelrail/services/config/backup-targets";
import type { listRegistryCredentials } from "@levelrail/services/config/registry-credentials";
import type { InvitationView, InviteResult } from "@levelrail/services/org/invitations";
import type { OrgView } from "@levelrail/services/org/list";
import type { MemberView } from "@levelrail/services/org/members";
import type { OrgSecurityView } from "@levelrail/services/org/security";
import type { SsoView } from "@levelrail/services/org/sso";
import type { SsoDomainView } from "@levelrail/services/org/sso-domains";
import { ROLES } from "@levelrail/spec/roles";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const time = z.string().describe("ISO 8601 date-time");
const id = z.string().describe("UUID");

export const newOrgSchema = z.strictObject({ id, name: z.string(), createdAt: time });
export const memberSchema = z.strictObject({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  joinedAt: time,
  you: z.boolean().describe("whether this is the caller"),
  twoFactorEnabled: z.boolean().nullable().describe("whether the member has a second factor; null unless the caller may manage sign-in security (owners)"),
});
export const invitationSchema = z.strictObject({ id, email: z.string(), role: z.string(), invitedBy: z.string().nullable(), createdAt: time, expiresAt: time });
export const inviteResultSchema = z.strictObject({
  invitation: invitationSchema,
  emailed: z.boolean(),
  link: z.string().nullable().describe("the single-use link when it was not mailed: shown once, never stored"),
  emailError: z.string().nullable(),
});
export const orgSecuritySchema = z.strictObject({
  orgId: id,
  require2fa: z.boolean(),
  owner: z.boolean().describe("whether the caller may change the policy"),
});
export const accountSchema = z.strictObject({
  userId: z.string(),
  email: z.string(),
  secondFactor: z.strictObject({ enabled: z.boolean(), lockedUntil: time.nullable() }),
  secondFactorRequiredBy: z.array(z.string()).describe("the organizations that require a second factor the caller has not enrolled"),
  ssoRequiredBy: z.array(z.string()).describe("the organizations that require single sign-on this session did not come through"),
});
export const ssoSchema = z.strictObject({
  orgId: id,
  configured: z.boolean(),
  issuer: z.string().nullable(),
  clientId: z.string().nullable(),
  clientSecretSet: z.boolean().describe("the client secret is write-only"),
  domain: z.string().nullable().describe("the email domain whose people sign in through it"),
  defaultRole: z.enum(ROLES),
  groupsClaim: z.string().nullable(),
  groupRoles: z.record(z.string(), z.enum(ROLES)),
  requireSso: z.boolean(),
  redirectUri: z.string().describe("to register at the identity provider"),
});
export const ssoDomainSchema = z.strictObject({
  domain: z.string(),
  status: z.enum(["pending", "verified", "failed"]).describe("verified: the TXT record held the organization's token (within the grace period)"),
  record: z.strictObject({ type: z.literal("TXT"), name: z.string(), value: z.string() }).describe("the record to create"),
  lastCheck: z.strictObject({ at: time, result: z.string() }).nullable(),
  verifiedAt: time.nullable(),
  signsIn: z.boolean().describe("whether the single sign-on signs in (and links) emails of this domain now"),
});
export const backupTargetSchema = z.strictObject({
  id,
  orgId: id,
  name: z.string(),
  endpoint: z.string(),
  bucket: z.string(),
  region: z.string(),
  accessKey: z.string(),
  secretKeySet: z.boolean().describe("the secret key is write-only"),
  createdAt: time,
  updatedAt: time,
});
export const registryCredentialSchema = z.strictObject({
  id,
  name: z.string(),
  server: z.string(),
  username: z.string(),
  passwordSet: z.boolean().describe("the password is write-only"),
  createdAt: time,
  updatedAt: time,
});

const checks: [
  Same<z.output<typeof newOrgSchema>, OrgView>,
  Same<z.output<typeof memberSchema>, MemberView>,
  Same<z.output<typeof invitationSchema>, InvitationView>,
  Same<z.output<typeof inviteResultSchema>, InviteResult>,
  Same<z.output<typeof orgSecuritySchema>, OrgSecurityView>,
  Same<z.output<typeof accountSchema>["secondFactor"], SecondFactorView>,
  Same<z.output<typeof backupTargetSchema>, Awaited<ReturnType<typeof listBackupTargets>>[number]>,
  Same<z.output<typeof registryCredentialSchema>, Awaited<ReturnType<typeof listRegistryCredentials>>[number]>,
  Same<z.output<typeof ssoSchema>, SsoView & { redirectUri: string }>,
  Same<z.output<typeof ssoDomainSchema>, SsoDomainView>,
] = [true, true, true, true, true, true, true, true, true, true];
void checks;
