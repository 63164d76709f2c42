import { z } from "zod";
import { ROLES, type Role, roleRank } from "@levelrail/spec/roles";
import { type TargetPolicy, policyProblem } from "../notifications/address";

/**
 * The pure rules of an organization's single sign-on: what a connection's settings may be, and
 * which role a member's groups give.
 */

const role = z.enum(ROLES);
/** An email domain as written in a connection or its list of proven domains (lower case). */
export const EMAIL_DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const ssoInput = z.strictObject({
  issuer: z.string().min(1).max(500),
  clientId: z.string().min(1).max(500),
  /** Write-only; left out on a change, the sealed one is kept. */
  clientSecret: z.string().min(1).max(2000).optional(),
  domain: z
    .string()
    .max(253)
    .transform((d) => d.trim().toLowerCase())
    .refine((d) => EMAIL_DOMAIN.test(d), "must be an email domain like example.com"),
  defaultRole: role.refine((r) => r !== "owner", "may not be owner (map a group to owner instead)").default("viewer"),
  groupsClaim: z
    .string()
    .max(100)
    .regex(/^[A-Za-z0-9_.:-]+$/, "must be a claim name (letters, digits, _ . : -)")
    .nullable()
    .default(null),
  groupRoles: z.record(z.string().min(1).max(200), role).default({}),
  requireSso: z.boolean().default(false),
});
export type SsoInput = z.infer<typeof ssoInput>;

/** Most groups a map may name. */
export const MAX_GROUP_ROLES = 100;

/**
 * Why the issuer URL is refused (a message for `issuer`), or null. Checked as written, without
 * connecting: HTTPS (plain HTTP only where private targets are allowed, a test on loopback), no
 * credentials, query or fragment, and a host the installation's address policy allows.
 */
export function issuerProblem(issuer: string, policy: TargetPolicy): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return "issuer: must be a URL like https://id.example.com";
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && policy.allowPrivate)) return "issuer: must be an https:// URL";
  if (url.username || url.password) return "issuer: may not carry credentials";
  if (url.search || url.hash) return "issuer: may not have a query or fragment";
  const host = policyProblem(url.hostname, policy);
  return host ? `issuer: ${host}` : null;
}

/** Other problems of a parsed input, as [field, message], or null. */
export function ssoInputProblem(input: SsoInput, policy: TargetPolicy, hasSecret: boolean): [string, string] | null {
  const issuer = issuerProblem(input.issuer, policy);
  if (issuer) return ["issuer", issuer];
  if (!hasSecret && input.clientSecret === undefined) return ["clientSecret", "clientSecret: is required"];
  if (Object.keys(input.groupRoles).length > MAX_GROUP_ROLES) return ["groupRoles", `groupRoles: at most ${MAX_GROUP_ROLES} groups`];
  if (Object.keys(input.groupRoles).length > 0 && input.groupsClaim === null) return ["groupsClaim", "groupsClaim: name the claim that holds the groups the map names"];
  return null;
}

/** The strongest role the groups map to, or null when the map names none of them. */
export function mappedRole(groups: readonly string[] | null, groupRoles: Readonly<Record<string, Role>>): Role | null {
  let best: Role | null = null;
  for (const g of groups ?? []) {
    const r = Object.hasOwn(groupRoles, g) ? groupRoles[g] : undefined;
    if (r && (best === null || roleRank(r) > roleRank(best))) best = r;
  }
  return best;
}

/**
 * What a sign-in through the connection does to the membership: a newcomer joins with the mapped role
 * or the default; a member takes the mapped role when the map names one (never demoting the last
 * owner), otherwise keeps theirs. Null: nothing changes.
 */
export function membershipChange(
  current: { role: Role } | null,
  mapped: Role | null,
  defaultRole: Role,
  lastOwner: boolean,
): { kind: "join" | "role"; role: Role } | null {
  if (!current) return { kind: "join", role: mapped ?? defaultRole };
  if (mapped === null || mapped === current.role) return null;
  if (current.role === "owner" && lastOwner) return null;
  return { kind: "role", role: mapped };
}
