import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { domainProof } from "@levelrail/db/schema/domains";
import { service } from "@levelrail/db/schema/services";
import { ssoEmailDomain } from "@levelrail/db/schema/sso";
import { ensureDomainToken } from "@levelrail/services/domain/token";
import { isExemptDomain } from "@levelrail/spec/domains";
import type { ProofStore } from "./controllers/domains/reconcile";

const isUniqueViolation = (err: unknown) => ((err as { cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code) === "23505";

/** The PostgreSQL side of the domains controller. */
export function pgProofStore(db: Db, baseDomains: readonly string[]): ProofStore {
  return {
    /** Services' domains, and the email domains an organization's single sign-on asks to sign in (each needs the same proof). */
    async claims() {
      const rows = await db.execute<{ org_id: string; domain: string }>(
        sql`select distinct ${service.orgId} as org_id, lower(d) as domain from ${service}, jsonb_array_elements_text(${service.domains}) as d
            union select ${ssoEmailDomain.orgId} as org_id, ${ssoEmailDomain.domain} as domain from ${ssoEmailDomain}`,
      );
      return [...rows].filter((r) => !isExemptDomain(r.domain, baseDomains)).map((r) => ({ orgId: r.org_id, domain: r.domain }));
    },
    async proofs() {
      return db
        .select({ id: domainProof.id, orgId: domainProof.orgId, domain: domainProof.domain, status: domainProof.status, lastSeenAt: domainProof.lastSeenAt, misses: domainProof.misses, nextCheckAt: domainProof.nextCheckAt })
        .from(domainProof);
    },
    async create(claims, now) {
      if (!claims.length) return;
      await db.insert(domainProof).values(claims.map((c) => ({ orgId: c.orgId, domain: c.domain, nextCheckAt: now }))).onConflictDoNothing();
    },
    async remove(ids) {
      if (ids.length) await db.delete(domainProof).where(and(inArray(domainProof.id, ids), ne(domainProof.status, "verified")));
    },
    token: (orgId) => ensureDomainToken(db, orgId),
    async record(id, c, now) {
      const set = {
        status: c.status,
        lastSeenAt: c.lastSeenAt,
        misses: c.misses,
        // A "Check now" that came while the lookup ran (it set the next check after `now`) stays due.
        nextCheckAt: sql`case when ${domainProof.nextCheckAt} > ${now.toISOString()}::timestamptz then least(${domainProof.nextCheckAt}, ${c.nextCheckAt.toISOString()}::timestamptz) else ${c.nextCheckAt.toISOString()}::timestamptz end`,
        lastCheckedAt: now,
        lastResult: c.result,
        ...(c.verifiedNow ? { verifiedAt: now } : {}),
      };
      try {
        await db.update(domainProof).set(set).where(eq(domainProof.id, id));
        return true;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        // Another organization holds it verified: this one stays as it was and says so, without naming it.
        await db
          .update(domainProof)
          .set({ lastCheckedAt: now, lastResult: "another organization has proven it owns this domain", misses: c.misses, nextCheckAt: c.nextCheckAt })
          .where(eq(domainProof.id, id));
        return false;
      }
    },
  };
}
