// Organizations, their members, invitations and sign-in security; the caller's account, sessions and tokens.
import { z } from "zod";
import { auditQuery } from "@levelrail/services/audit/list";
import { orgInput } from "@levelrail/services/org/create";
import { securityInput } from "@levelrail/services/org/security";
import { ssoDomainInput } from "@levelrail/services/org/sso-domains";
import { ssoInput } from "@levelrail/services/org/sso-rules";
import { acceptInput, inviteInput, memberRoleInput } from "@levelrail/spec/members";
import { envDocument } from "@levelrail/spec/rules";
import { op } from "../operation";
import { anyObject, orgSchema, tierEnvSchema } from "../schemas";
import { quotasSchema, sessionSchema, tokenSchema } from "../schemas-more";
import { accountSchema, invitationSchema, inviteResultSchema, memberSchema, newOrgSchema, orgSecuritySchema, ssoDomainSchema, ssoSchema } from "../schemas-org";

const O = "/api/v1/orgs/{id}";

export const ORG_ROUTES = [
  op({ method: "get", path: "/api/v1/orgs", id: "listOrgs", tag: "Organizations", summary: "Organizations the caller belongs to, with their role and what it allows", ok: { status: 200, description: "the organizations", schema: z.array(orgSchema) } }),
  op({ method: "post", path: "/api/v1/orgs", id: "createOrg", tag: "Organizations", summary: "Create an organization (the caller owns it)", body: orgInput, ok: { status: 201, description: "the organization", schema: newOrgSchema } }),
  op({ method: "get", path: `${O}/env`, id: "getOrgEnv", tag: "Env vars", summary: "The organization tier's env vars", ok: { status: 200, description: "the vars", schema: tierEnvSchema } }),
  op({ method: "put", path: `${O}/env`, id: "putOrgEnv", tag: "Env vars", summary: "Replace the organization tier's env vars (the whole set)", body: envDocument, ok: { status: 200, description: "the vars", schema: tierEnvSchema } }),
  op({ method: "get", path: `${O}/quotas`, id: "getQuotas", tag: "Organizations", summary: "The organization's quotas: used, limit, source", ok: { status: 200, description: "the quotas", schema: quotasSchema } }),
  op({
    method: "get",
    path: `${O}/audit`,
    id: "listAudit",
    tag: "Audit",
    summary: "The audit log, newest first, cursor-paged",
    description: "With `Accept: application/x-ndjson` (or `?format=jsonl`) the whole filtered log as one entry per line.",
    query: auditQuery,
    ok: { status: 200, description: "one page of entries", schema: anyObject, other: { contentType: "application/x-ndjson", description: "every matching entry, one JSON object per line" } },
  }),
  op({ method: "get", path: `${O}/members`, id: "listMembers", tag: "Members", summary: "The organization's members and their roles", ok: { status: 200, description: "the members", schema: z.array(memberSchema) } }),
  op({ method: "patch", path: `${O}/members/{userId}`, id: "changeMemberRole", tag: "Members", summary: "Change a member's role (`me` for the caller)", body: memberRoleInput, ok: { status: 200, description: "the member", schema: memberSchema } }),
  op({ method: "delete", path: `${O}/members/{userId}`, id: "removeMember", tag: "Members", summary: "Remove a member (`me`: leave); the last owner cannot", ok: { status: 204, description: "removed" } }),
  op({ method: "delete", path: `${O}/members/{userId}/two-factor`, id: "resetMemberSecondFactor", tag: "Members", summary: "Remove a member's second factor (of a member of other organizations too: an installation administrator only)", ok: { status: 200, description: "what was reset", schema: z.strictObject({ userId: z.string(), hadSecondFactor: z.boolean() }) } }),
  op({ method: "delete", path: `${O}/members/{userId}/sessions`, id: "signOutMember", tag: "Members", summary: "End a member's sessions: every one of a member of this organization alone; of a member of other organizations too, those that act in this one only (its single sign-on's), unless an installation administrator asks", ok: { status: 200, description: "how many ended, and how many were kept because they reach other organizations", schema: z.strictObject({ userId: z.string(), sessionsEnded: z.number().int(), sessionsKept: z.number().int() }) } }),
  op({ method: "get", path: `${O}/invitations`, id: "listInvitations", tag: "Members", summary: "Open invitations", ok: { status: 200, description: "the invitations", schema: z.array(invitationSchema) } }),
  op({ method: "post", path: `${O}/invitations`, id: "inviteMember", tag: "Members", summary: "Invite by email with a role: a single-use link valid 7 days", body: inviteInput, ok: { status: 201, description: "the invitation (its link only when no SMTP server mails it)", schema: inviteResultSchema } }),
  op({ method: "delete", path: `${O}/invitations/{invitationId}`, id: "revokeInvitation", tag: "Members", summary: "Revoke an invitation", ok: { status: 204, description: "revoked" } }),
  op({
    method: "post",
    path: "/api/v1/invitations/accept",
    id: "acceptInvitation",
    tag: "Members",
    summary: "Accept an invitation: signed in, join; signed out (from the panel's own page), sign up and join",
    body: acceptInput,
    public: true,
    ok: { status: 200, description: "joined (201 when the person was signed up)", schema: anyObject },
  }),
  op({ method: "get", path: `${O}/security`, id: "getOrgSecurity", tag: "Organizations", summary: "Whether the organization requires a second factor", ok: { status: 200, description: "the setting", schema: orgSecuritySchema } }),
  op({ method: "put", path: `${O}/security`, id: "setOrgSecurity", tag: "Organizations", summary: "Require (or not) a second factor of every member", body: securityInput, ok: { status: 200, description: "the setting", schema: orgSecuritySchema } }),
  op({ method: "get", path: `${O}/sso`, id: "getSso", tag: "Organizations", summary: "The organization's OpenID Connect single sign-on (owners)", ok: { status: 200, description: "the connection", schema: ssoSchema } }),
  op({ method: "put", path: `${O}/sso`, id: "setSso", tag: "Organizations", summary: "Set the single sign-on connection (owners); the client secret is sealed", body: ssoInput, ok: { status: 200, description: "the connection", schema: ssoSchema } }),
  op({ method: "delete", path: `${O}/sso`, id: "deleteSso", tag: "Organizations", summary: "Remove the single sign-on connection (owners)", ok: { status: 204, description: "removed" } }),
  op({ method: "get", path: `${O}/sso/domains`, id: "listSsoDomains", tag: "Organizations", summary: "The email domains the single sign-on signs in, each with its TXT proof (owners)", ok: { status: 200, description: "the domains", schema: z.array(ssoDomainSchema) } }),
  op({
    method: "post",
    path: `${O}/sso/domains`,
    id: "addSsoDomain",
    tag: "Organizations",
    summary: "Add an email domain for single sign-on (owners): it signs in once its TXT record holds the organization's token",
    description: "The single sign-on signs in and links only emails of domains the organization has proven it owns (the same TXT record `_levelrail-challenge.<domain>` a service's domain needs). 409 when another organization has proven it.",
    body: ssoDomainInput,
    ok: { status: 201, description: "the domain, with the record to create", schema: ssoDomainSchema },
  }),
  op({ method: "post", path: `${O}/sso/domains/{domain}/check`, id: "checkSsoDomain", tag: "Organizations", summary: "Check an email domain's TXT record now (owners)", ok: { status: 202, description: "the domain as it stands", schema: ssoDomainSchema } }),
  op({ method: "delete", path: `${O}/sso/domains/{domain}`, id: "removeSsoDomain", tag: "Organizations", summary: "Remove an email domain: the single sign-on no longer signs in its people (owners)", ok: { status: 204, description: "removed" } }),
  op({ method: "get", path: "/api/v1/account", id: "getAccount", tag: "Account", summary: "The caller: user id, email, second factor, organizations that require one", ok: { status: 200, description: "the account", schema: accountSchema } }),
  op({ method: "get", path: "/api/v1/sessions", id: "listSessions", tag: "Account", summary: "The caller's signed-in sessions", ok: { status: 200, description: "the sessions", schema: z.array(sessionSchema) } }),
  op({ method: "delete", path: "/api/v1/sessions", id: "endOtherSessions", tag: "Account", summary: "End every session of the caller but this one", ok: { status: 200, description: "how many ended", schema: z.strictObject({ ended: z.number().int() }) } }),
  op({ method: "delete", path: "/api/v1/sessions/{id}", id: "endSession", tag: "Account", summary: "End one of the caller's sessions", ok: { status: 204, description: "ended" } }),
  op({ method: "get", path: "/api/v1/tokens", id: "listTokens", tag: "Account", summary: "The caller's API tokens (name, created, last used, expiry; never the token)", ok: { status: 200, description: "the tokens", schema: z.array(tokenSchema) } }),
  op({ method: "delete", path: "/api/v1/tokens/{id}", id: "revokeToken", tag: "Account", summary: "Revoke one of the caller's API tokens", ok: { status: 204, description: "revoked" } }),
];
