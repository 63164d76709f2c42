import { and, eq, inArray } from "drizzle-orm";
import { domainProof } from "@levelrail/db/schema/domains";
import type { DomainStatusMap } from "@levelrail/spec/domains";
import { LevelrailError } from "@levelrail/spec/errors";
import type { Ctx } from "../context";
import { findService } from "../service/view";
import { claimDomains, domainStatusOf, needingProof } from "./status";
import { audit } from "../audit/record";

/** "Check now": the service's domains that need a proof are checked by the worker at once (202 with their status as it stands). */
export async function checkDomainsNow({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<{ domainStatus: DomainStatusMap }> {
  const { service: s } = await findService(ctx, envId, name, "service.write");
  const wanted = needingProof(ctx, s.domains);
  if (!wanted.length) throw new LevelrailError("invalid_input", "domains: the service has no domain that needs an ownership proof", { field: "domains" });
  await ctx.db.transaction(async (tx) => {
    await claimDomains(ctx, tx, s.orgId, wanted);
    await tx
      .update(domainProof)
      .set({ nextCheckAt: new Date() })
      .where(and(eq(domainProof.orgId, s.orgId), inArray(domainProof.domain, wanted)));
    await audit(ctx, tx, { orgId: s.orgId, action: "service.domains.check", target: { type: "service", id: s.id, name: s.name }, fields: ["domains"] });
  });
  return { domainStatus: await domainStatusOf(ctx, s) };
}
