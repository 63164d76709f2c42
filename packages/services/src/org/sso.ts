import { and, count, eq, isNull } from "drizzle-orm";
import type { SsoBackend, SsoSignIn } from "@levelrail/auth/sso";
import type { Db } from "@levelrail/db/client";
import { account, session, user } from "@levelrail/db/schema/auth";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { domainProof } from "@levelrail/db/schema/domains";
import { ssoConnection, ssoEmailDomain } from "@levelrail/db/schema/sso";
import type { Keyring } from "@levelrail/secrets";
import { LevelrailError } from "@levelrail/spec/errors";
import type { Role } from "@levelrail/spec/roles";
import { audit, fieldNames, recordAudit } from "../audit/record";
import { type Ctx, orgOf, parse, targetPolicy } from "../context";
import type { TargetPolicy } from "../notifications/address";
import { authorize } from "./permissions";
import { emailDomainOf, emailDomainProven } from "./sso-domains";
import { ssoHttp } from "./sso-http";
import { mappedRole, membershipChange, ssoInput, ssoInputProblem } from "./sso-rules";

/** An organization's single sign-on as the API shows it: the client secret only as set or not. */
export interface SsoView {
  orgId: string;
  configured: boolean;
  issuer: string | null;
  clientId: string | null;
  clientSecretSet: boolean;
  domain: string | null;
  defaultRole: Role;
  groupsClaim: string | null;
  groupRoles: Record<string, Role>;
  requireSso: boolean;
}

const notConfigured = (orgId: string): SsoView => ({
  orgId,
  configured: false,
  issuer: null,
  clientId: null,
  clientSecretSet: false,
  domain: null,
  defaultRole: "viewer",
  groupsClaim: null,
  groupRoles: {},
  requireSso: false,
});

type Row = typeof ssoConnection.$inferSelect;
const viewOf = (r: Row): SsoView => ({
  orgId: r.orgId,
  configured: true,
  issuer: r.issuer,
  clientId: r.clientId,
  clientSecretSet: r.clientSecretSealed.length > 0,
  domain: r.domain,
  defaultRole: r.defaultRole,
  groupsClaim: r.groupsClaim,
  groupRoles: r.groupRoles,
  requireSso: r.requireSso,
});

async function rowOf(db: Db, orgId: string): Promise<Row | null> {
  const [row] = await db.select().from(ssoConnection).where(eq(ssoConnection.orgId, orgId));
  return row ?? null;
}

export async function getSso({ ctx, orgId }: { ctx: Ctx; orgId: string }): Promise<SsoView> {
  const id = orgOf(ctx, orgId);
  authorize(ctx, "sso.read", { orgId: id });
  const row = await rowOf(ctx.db, id);
  return row ? viewOf(row) : notConfigured(id);
}

/**
 * Sets the organization's connection (owners only). The issuer is checked as written, never
 * reached here; the client secret is sealed and never answered; `requireSso` needs the caller's own
 * session to have come through this connection (or an API token), so an owner cannot lock themselves out.
 */
export async function setSso({ ctx, orgId, input }: { ctx: Ctx; orgId: string; input: unknown }): Promise<SsoView> {
  const id = orgOf(ctx, orgId);
  authorize(ctx, "sso.write", { orgId: id });
  const parsed = parse(ssoInput, input);
  const existing = await rowOf(ctx.db, id);
  const problem = ssoInputProblem(parsed, targetPolicy(ctx), existing !== null);
  if (problem) throw new LevelrailError("invalid_input", problem[1], { field: problem[0] });
  if (parsed.requireSso && ctx.actor.sessionId !== undefined && ctx.actor.ssoOrgId !== id) {
    throw new LevelrailError("invalid_input", "requireSso: sign in through this organization's single sign-on yourself first", { field: "requireSso" });
  }
  const { clientSecret, ...rest } = parsed;
  const values = { ...rest, ...(clientSecret === undefined ? {} : { clientSecretSealed: ctx.kit.keyring.seal(clientSecret) }), updatedAt: new Date() };
  // `domain` is the owner's word, never proven: it reserves nothing (two organizations may name the
  // same one) and routes nobody; the proven email domains do (sso-domains.ts).
  const row = await ctx.db.transaction(async (tx) => {
    const [saved] = existing
      ? await tx.update(ssoConnection).set(values).where(eq(ssoConnection.orgId, id)).returning()
      : await tx.insert(ssoConnection).values({ ...values, orgId: id, clientSecretSealed: values.clientSecretSealed ?? "" }).returning();
    const [org] = await tx.select({ name: organization.name }).from(organization).where(eq(organization.id, id));
    await audit(ctx, tx, { orgId: id, action: `sso.${existing ? "update" : "create"}`, target: { type: "sso", id, name: org?.name ?? null }, fields: fieldNames(parsed) });
    return saved;
  });
  if (!row) throw new LevelrailError("internal", "single sign-on was not saved");
  return viewOf(row);
}

/** Removes the organization's connection (none: nothing to remove, still a 204): its members sign in with their passwords again. */
export async function deleteSso({ ctx, orgId }: { ctx: Ctx; orgId: string }): Promise<void> {
  const id = orgOf(ctx, orgId);
  authorize(ctx, "sso.write", { orgId: id });
  await ctx.db.transaction(async (tx) => {
    await tx.delete(ssoConnection).where(eq(ssoConnection.orgId, id));
    await audit(ctx, tx, { orgId: id, action: "sso.delete", target: { type: "sso", id } });
  });
}

/**
 * What better-auth's SSO plugin asks of the database: the connection with its secret opened, and
 * every request to its identity provider made under the address policy (`ssoHttp`: each host
 * resolved once and checked, the connection pinned to that address); the organization of an email
 * domain; whether a sign-in may link or open; and the membership a sign-in makes or changes.
 */
export function ssoBackend(db: Db, keyring: Keyring, policy: TargetPolicy): SsoBackend {
  const http = ssoHttp(policy);
  return {
    async connection(orgId) {
      const row = await rowOf(db, orgId);
      if (!row || !row.clientSecretSealed) return null;
      return { issuer: row.issuer, clientId: row.clientId, clientSecret: keyring.open(row.clientSecretSealed), groupsClaim: row.groupsClaim, http };
    },
    /**
     * The organization with a connection that has proven this email domain (at most one may), else
     * none: the domain a connection names is never proven, so it routes nobody.
     */
    async orgForDomain(domain) {
      const [proven] = await db
        .select({ orgId: ssoEmailDomain.orgId })
        .from(ssoEmailDomain)
        .innerJoin(domainProof, and(eq(domainProof.orgId, ssoEmailDomain.orgId), eq(domainProof.domain, ssoEmailDomain.domain), eq(domainProof.status, "verified")))
        .innerJoin(ssoConnection, eq(ssoConnection.orgId, ssoEmailDomain.orgId))
        .where(eq(ssoEmailDomain.domain, domain))
        .limit(1);
      return proven?.orgId ?? null;
    },
    async mayLink(orgId, userId) {
      const [member] = await db.select({ role: membership.role }).from(membership).where(and(eq(membership.orgId, orgId), eq(membership.userId, userId)));
      if (member) return true;
      const [any] = await db.select({ id: account.id }).from(account).where(eq(account.userId, userId)).limit(1);
      return any === undefined;
    },
    async refusal(orgId, who) {
      let email = "email" in who ? who.email : null;
      if (email === null) {
        const [row] = await db.select({ email: user.email }).from(user).where(eq(user.id, (who as { userId: string }).userId));
        email = row?.email ?? "";
      }
      if (await emailDomainProven(db, orgId, email)) return null;
      const domain = emailDomainOf(email);
      return domain
        ? `this organization's single sign-on signs in only emails of domains it has proven it owns, and ${domain} is not one of them: sign in with your password, or ask the organization's owner to prove ${domain}`
        : "the identity provider sent no usable email address";
    },
    signedIn: (event) => applySignIn(db, event),
  };
}

/** One sign-in through an organization's connection: membership and role, the session's mark, one audit entry when something changed. */
export async function applySignIn(db: Db, e: SsoSignIn): Promise<void> {
  await db.transaction(async (tx) => {
    const [conn] = await tx.select().from(ssoConnection).where(eq(ssoConnection.orgId, e.orgId));
    if (!conn) return;
    const [current] = await tx
      .select({ role: membership.role })
      .from(membership)
      .where(and(eq(membership.orgId, e.orgId), eq(membership.userId, e.userId)))
      .for("update");
    const [owners] = await tx
      .select({ n: count() })
      .from(membership)
      .where(and(eq(membership.orgId, e.orgId), eq(membership.role, "owner"), isNull(membership.projectId)));
    const change = membershipChange(current ?? null, mappedRole(e.groups, conn.groupRoles), conn.defaultRole, (owners?.n ?? 0) <= 1);
    if (change?.kind === "join") await tx.insert(membership).values({ orgId: e.orgId, userId: e.userId, role: change.role });
    if (change?.kind === "role") await tx.update(membership).set({ role: change.role, projectId: null }).where(and(eq(membership.orgId, e.orgId), eq(membership.userId, e.userId)));
    await tx.update(session).set({ ssoOrgId: e.orgId }).where(eq(session.id, e.sessionId));
    if (change) {
      await recordAudit(
        tx,
        { actor: { type: "user", id: e.userId, name: e.email }, ip: e.ip },
        { orgId: e.orgId, action: change.kind === "join" ? "member.sso-join" : "member.sso-role", target: { type: "user", id: e.userId, name: e.email }, fields: ["role"] },
      );
    }
  });
}
