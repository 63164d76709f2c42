import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { getTierEnv } from "@levelrail/services/env/vars";
import { ScopeSelect } from "@/components/scope-select";
import { TierEnvSummary } from "@/components/settings-text";
import { TierEnvEditor } from "@/components/tier-env-settings";
import { keys } from "@/lib/keys";
import { type ScopeParams, settingsOrg } from "@/lib/settings-scope";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Organization env · Levelrail" };

/** Settings › Organization env: the lowest tier of env vars, every service of the organization's. */
export default async function OrgEnvPage({ searchParams }: { searchParams: ScopeParams }) {
  const ctx = await requireCtx();
  const { orgs, org } = await settingsOrg(ctx, searchParams);
  const qc = new QueryClient();
  if (org) await qc.prefetchQuery({ queryKey: keys.tierEnv("organization", org.id), queryFn: () => getTierEnv({ ctx, tier: "organization", id: org.id }) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Organization env</h1>
      <TierEnvSummary />
      {org ? (
        <>
          <ScopeSelect id="org-select" label="Organization" param="org" value={org.id} options={orgs.map(({ id, name }) => ({ id, name }))} />
          <TierEnvEditor
            tier="organization"
            id={org.id}
            title="Organization env"
            description={`Every service of the organization ${org.name} gets these, unless a higher tier sets the same key.`}
          />
        </>
      ) : (
        <p className="muted">You belong to no organization.</p>
      )}
    </HydrationBoundary>
  );
}
