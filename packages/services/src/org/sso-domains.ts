import { and, asc, eq, ne } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@levelrail/db/client";
import { notifyDesired } from "@levelrail/db/notify";
import { domainProof } from "@levelrail/db/schema/domains";
import { ssoEmailDomain } from "@levelrail/db/schema/sso";
import { type DomainProofStatus, challengeName, isExemptDomain } from "@levelrail/spec/domains";
import { LevelrailError } from "@levelrail/spec/errors";
import { DOMAINS_KEY } from "@levelrail/spec/keys";
import { audit } from "../audit/record";
import { type Ctx, MAX_LIST_ROWS, bounded, orgOf, parse } from "../context";
import { ensureDomainToken } from "../domain/token";
import { authorize } from "./permissions";
import { EMAIL_DOMAIN } from "./sso-rules";

/**
 * The email domains an organization's single sign-on may sign in and link users of. Each needs the
 * proof a service's domain needs: a TXT record `_levelrail-challenge.<domain>` holding the
 * organization's token, which the worker checks (at once when asked, then on its schedule, so a
 * record taken away ends the domain's sign-ins after the grace period). Owners only.
 */

/** One email domain as the API shows it. */
export interface SsoDomainView {
  domain: string;
  /** `verified`: the connection signs in emails of this domain. */
  status: DomainProofStatus;
  /** The record to create. */
  record: { type: "TXT"; name: string; value: string };
  lastCheck: { at: string; result: string } | null;
  verifiedAt: string | null;
  /** Whether the connection signs in (and links) emails of this domain now. */
  signsIn: boolean;
}

export const ssoDomainInput = z.strictObject({
  domain: z
    .string()
    .max(253)
    .transform((d) => d.trim().toLowerCase().replace(/\.$/, ""))
    .refine((d) => EMAIL_DOMAIN.test(d), "must be an email domain like example.com"),
});

async function viewsOf(db: Db, orgId: string, only?: string): Promise<SsoDomainView[]> {
  const token = await ensureDomainToken(db, orgId);
  const rows = await db
    .select({ domain: ssoEmailDomain.domain, status: domainProof.status, lastCheckedAt: domainProof.lastCheckedAt, lastResult: domainProof.lastResult, verifiedAt: domainProof.verifiedAt })
    .from(ssoEmailDomain)
    .leftJoin(domainProof, and(eq(domainProof.orgId, ssoEmailDomain.orgId), eq(domainProof.domain, ssoEmailDomain.domain)))
    .where(and(eq(ssoEmailDomain.orgId, orgId), only === undefined ? undefined : eq(ssoEmailDomain.domain, only)))
    .orderBy(asc(ssoEmailDomain.domain))
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "email domains", "remove the ones you no longer use").map((r) => ({
    domain: r.domain,
    status: r.status ?? "pending",
    record: { type: "TXT", name: challengeName(r.domain), value: token },
    lastCheck: r.lastCheckedAt ? { at: r.lastCheckedAt.toISOString(), result: r.lastResult ?? "" } : null,
    verifiedAt: r.verifiedAt?.toISOString() ?? null,
    signsIn: r.status === "verified",
  }));
}

/** A domain named in a path: lower case, or a 404 when it is not one of the organization's. */
async function oneOf(db: Db, orgId: string, domain: string): Promise<SsoDomainView> {
  const d = domain.trim().toLowerCase();
  const [view] = EMAIL_DOMAIN.test(d) ? await viewsOf(db, orgId, d) : [];
  if (!view) throw new LevelrailError("not_found", "email domain not found", { field: "domain" });
  return view;
}

export async function listSsoDomains({ ctx, orgId }: { ctx: Ctx; orgId: string }): Promise<SsoDomainView[]> {
  const id = orgOf(ctx, orgId);
  authorize(ctx, "sso.read", { orgId: id });
  return viewsOf(ctx.db, id);
}

/**
 * Adds an email domain (pending until its TXT record is found). 409 when another organization has
 * proven it owns the domain (never saying which); the installation's own domains (`*.localhost`, its
 * base domains) cannot be proven by an organization.
 */
export async function addSsoDomain({ ctx, orgId, input }: { ctx: Ctx; orgId: string; input: unknown }): Promise<SsoDomainView> {
  const id = orgOf(ctx, orgId);
  authorize(ctx, "sso.write", { orgId: id });
  const { domain } = parse(ssoDomainInput, input);
  if (isExemptDomain(domain, ctx.baseDomains ?? [])) {
    throw new LevelrailError("invalid_input", `domain: ${domain} is the installation's own domain; an organization cannot prove it owns it`, { field: "domain" });
  }
  const [taken] = await ctx.db
    .select({ id: domainProof.id })
    .from(domainProof)
    .where(and(eq(domainProof.domain, domain), eq(domainProof.status, "verified"), ne(domainProof.orgId, id)))
    .limit(1);
  if (taken) throw new LevelrailError("conflict", `domain: ${domain} is owned by another organization (it has proven it with a DNS record)`, { field: "domain" });
  await ctx.db.transaction(async (tx) => {
    const added = await tx.insert(ssoEmailDomain).values({ orgId: id, domain }).onConflictDoNothing().returning({ id: ssoEmailDomain.id });
    if (!added.length) return;
    await ensureDomainToken(tx, id);
    await tx.insert(domainProof).values({ orgId: id, domain }).onConflictDoNothing();
    await tx.update(domainProof).set({ nextCheckAt: new Date() }).where(and(eq(domainProof.orgId, id), eq(domainProof.domain, domain)));
    await notifyDesired(tx, DOMAINS_KEY);
    await audit(ctx, tx, { orgId: id, action: "sso.domain.add", target: { type: "sso-domain", id, name: domain }, fields: ["domain"] });
  });
  return oneOf(ctx.db, id, domain);
}

/** "Check now": the worker looks the domain's TXT record up at once; answers the status as it stands (202). */
export async function checkSsoDomain({ ctx, orgId, domain }: { ctx: Ctx; orgId: string; domain: string }): Promise<SsoDomainView> {
  const id = orgOf(ctx, orgId);
  authorize(ctx, "sso.write", { orgId: id });
  const view = await oneOf(ctx.db, id, domain);
  await ctx.db.transaction(async (tx) => {
    await tx.insert(domainProof).values({ orgId: id, domain: view.domain }).onConflictDoNothing();
    await tx.update(domainProof).set({ nextCheckAt: new Date() }).where(and(eq(domainProof.orgId, id), eq(domainProof.domain, view.domain)));
    await notifyDesired(tx, DOMAINS_KEY);
    await audit(ctx, tx, { orgId: id, action: "sso.domain.check", target: { type: "sso-domain", id, name: view.domain } });
  });
  return view;
}

/** Removes an email domain: its people no longer sign in through the connection (their sessions stay until they end). */
export async function removeSsoDomain({ ctx, orgId, domain }: { ctx: Ctx; orgId: string; domain: string }): Promise<void> {
  const id = orgOf(ctx, orgId);
  authorize(ctx, "sso.write", { orgId: id });
  const view = await oneOf(ctx.db, id, domain);
  await ctx.db.transaction(async (tx) => {
    await tx.delete(ssoEmailDomain).where(and(eq(ssoEmailDomain.orgId, id), eq(ssoEmailDomain.domain, view.domain)));
    await audit(ctx, tx, { orgId: id, action: "sso.domain.remove", target: { type: "sso-domain", id, name: view.domain } });
  });
}

/** The domain of an email address, lower case, or null. */
export const emailDomainOf = (email: string): string | null => /^[^@\s]+@([^@\s]+)$/.exec(email.trim())?.[1]?.toLowerCase().replace(/\.$/, "") ?? null;

/** Whether the organization's connection may sign in (or link) this email: its domain is one of the organization's, proven. */
export async function emailDomainProven(db: Db, orgId: string, email: string): Promise<boolean> {
  const domain = emailDomainOf(email);
  if (!domain) return false;
  const [row] = await db
    .select({ id: ssoEmailDomain.id })
    .from(ssoEmailDomain)
    .innerJoin(domainProof, and(eq(domainProof.orgId, ssoEmailDomain.orgId), eq(domainProof.domain, ssoEmailDomain.domain)))
    .where(and(eq(ssoEmailDomain.orgId, orgId), eq(ssoEmailDomain.domain, domain), eq(domainProof.status, "verified")))
    .limit(1);
  return row !== undefined;
}
