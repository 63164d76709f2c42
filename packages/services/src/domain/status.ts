import { and, eq, inArray, ne } from "drizzle-orm";
import { notifyDesired } from "@levelrail/db/notify";
import { domainProof } from "@levelrail/db/schema/domains";
import { type DomainStatusMap, challengeName, isExemptDomain } from "@levelrail/spec/domains";
import { LevelrailError } from "@levelrail/spec/errors";
import { DOMAINS_KEY } from "@levelrail/spec/keys";
import type { Ctx } from "../context";
import { ensureDomainToken } from "./token";

type Tx = Parameters<Parameters<Ctx["db"]["transaction"]>[0]>[0];

/** The domains of a list that need an ownership proof (not `*.localhost`, not under a base domain), lower case. */
export const needingProof = (ctx: Ctx, domains: readonly string[]) => [...new Set(domains.map((d) => d.toLowerCase()))].filter((d) => !isExemptDomain(d, ctx.baseDomains ?? []));

/**
 * 409 when another organization has proven it owns one of the domains; its name is never said.
 * (A domain another organization only claims, unproven, stays open: whoever proves it first gets it.)
 */
export async function refuseProvenElsewhere(ctx: Ctx, orgId: string, domains: readonly string[]): Promise<void> {
  const wanted = needingProof(ctx, domains);
  if (!wanted.length) return;
  const [taken] = await ctx.db
    .select({ domain: domainProof.domain })
    .from(domainProof)
    .where(and(inArray(domainProof.domain, wanted), eq(domainProof.status, "verified"), ne(domainProof.orgId, orgId)))
    .limit(1);
  if (taken) throw new LevelrailError("conflict", `domains: ${taken.domain} is owned by another organization (it has proven it with a DNS record)`, { field: "domains" });
}

/**
 * Of other organizations' services' domains: those that need a proof their organization does not
 * have (`<orgId> <domain>`). Such a claim does not keep a domain from its real owner.
 */
export async function claimsWithoutProof(ctx: Ctx, claims: { orgId: string; domains: string[] }[]): Promise<Set<string>> {
  const pairs = claims.flatMap((c) => needingProof(ctx, c.domains).map((domain) => ({ orgId: c.orgId, domain })));
  if (!pairs.length) return new Set();
  const proven = await ctx.db
    .select({ orgId: domainProof.orgId, domain: domainProof.domain })
    .from(domainProof)
    .where(and(inArray(domainProof.domain, [...new Set(pairs.map((p) => p.domain))]), eq(domainProof.status, "verified")));
  const has = new Set(proven.map((p) => `${p.orgId} ${p.domain}`));
  return new Set(pairs.map((p) => `${p.orgId} ${p.domain}`).filter((k) => !has.has(k)));
}

/** In the service's write: the organization's token and a pending proof of each new domain that needs one; the worker checks them at once. */
export async function claimDomains(ctx: Ctx, tx: Tx, orgId: string, domains: readonly string[]): Promise<void> {
  const wanted = needingProof(ctx, domains);
  if (!wanted.length) return;
  await ensureDomainToken(tx, orgId);
  await tx.insert(domainProof).values(wanted.map((domain) => ({ orgId, domain }))).onConflictDoNothing();
  await notifyDesired(tx, DOMAINS_KEY);
}

/** Each domain of a service: the record to create, its status and its last check. */
export async function domainStatusOf(ctx: Ctx, s: { orgId: string; domains: string[] }): Promise<DomainStatusMap> {
  const wanted = needingProof(ctx, s.domains);
  const token = wanted.length ? await ensureDomainToken(ctx.db, s.orgId) : "";
  const proofs = wanted.length
    ? await ctx.db.select().from(domainProof).where(and(eq(domainProof.orgId, s.orgId), inArray(domainProof.domain, wanted)))
    : [];
  const out: DomainStatusMap = {};
  for (const domain of s.domains) {
    const d = domain.toLowerCase();
    if (!wanted.includes(d)) {
      out[domain] = { status: "verified", exempt: true, record: null, lastCheck: null, verifiedAt: null, routable: true };
      continue;
    }
    const p = proofs.find((x) => x.domain === d);
    out[domain] = {
      status: p?.status ?? "pending",
      exempt: false,
      record: { type: "TXT", name: challengeName(d), value: token },
      lastCheck: p?.lastCheckedAt ? { at: p.lastCheckedAt.toISOString(), result: p.lastResult ?? "" } : null,
      verifiedAt: p?.verifiedAt?.toISOString() ?? null,
      routable: p?.status === "verified",
    };
  }
  return out;
}
