import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listAudit } from "@levelrail/services/audit/list";
import { listOrgs } from "@levelrail/services/org/list";
import { AuditLog } from "@/components/audit-log";
import { currentEnvironment } from "@/lib/environment";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Audit log · Levelrail" };

/** Settings › Audit log: every change in the organization, newest first, with filters, paging and an export. */
export default async function AuditPage() {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  const [orgs, current] = await Promise.all([listOrgs({ ctx }), currentEnvironment(ctx)]);
  const org = orgs.find((o) => o.id === current?.project.orgId) ?? orgs[0];
  if (org) await qc.prefetchQuery({ queryKey: keys.audit(org.id, {}, ""), queryFn: () => listAudit({ ctx, orgId: org.id, input: {} }) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Audit log</h1>
      <p className="muted">
        Every change, whoever made it: a user, an API token, the CLI or the worker on a schedule. Field names only, never a
        secret&apos;s value. Entries cannot be changed or deleted; they are kept for the installation&apos;s retention period.
      </p>
      {org ? <AuditLog orgs={orgs} initialOrgId={org.id} /> : <p className="muted">You belong to no organization.</p>}
    </HydrationBoundary>
  );
}
