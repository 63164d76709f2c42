import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { getQuotas } from "@levelrail/services/org/quota";
import { QUOTA_KINDS } from "@levelrail/spec/lists";
import { QuotasCard } from "@/components/quotas-card";
import { ScopeSelect } from "@/components/scope-select";
import { QuotasNote } from "@/components/settings-text";
import { keys } from "@/lib/keys";
import { type ScopeParams, settingsOrg } from "@/lib/settings-scope";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Quotas · Levelrail" };

/** Settings › Quotas: how many of each kind an organization has, of how many it may. */
export default async function QuotasPage({ searchParams }: { searchParams: ScopeParams }) {
  const ctx = await requireCtx();
  const { orgs, org } = await settingsOrg(ctx, searchParams);
  const qc = new QueryClient();
  if (org) await qc.prefetchQuery({ queryKey: keys.quotas(org.id), queryFn: () => getQuotas({ ctx, orgId: org.id }) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Quotas</h1>
      {org ? (
        <>
          <ScopeSelect id="org-select" label="Organization" param="org" value={org.id} options={orgs.map(({ id, name }) => ({ id, name }))} />
          {/* The kinds and the note reach the client card as props: not in the page's JavaScript. */}
          <QuotasCard org={org} kinds={QUOTA_KINDS} note={<QuotasNote />} />
        </>
      ) : (
        <p className="muted">You belong to no organization.</p>
      )}
    </HydrationBoundary>
  );
}
