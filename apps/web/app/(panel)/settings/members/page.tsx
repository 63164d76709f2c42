import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listOrgs } from "@levelrail/services/org/list";
import { listMembers } from "@levelrail/services/org/members";
import { MembersSettings } from "@/components/members-card";
import { currentEnvironment } from "@/lib/environment";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Members · Levelrail" };

type Props = { searchParams: Promise<{ org?: string | string[] }> };

/** The members of one of the caller's organizations (`?org=`, else the current environment's), their roles and invitations. */
export default async function MembersPage({ searchParams }: Props) {
  const ctx = await requireCtx();
  const { org: asked } = await searchParams;
  const [orgs, current] = await Promise.all([listOrgs({ ctx }), currentEnvironment(ctx)]);
  const org = orgs.find((o) => o.id === asked) ?? orgs.find((o) => o.id === current?.project.orgId) ?? orgs[0];
  const qc = new QueryClient();
  qc.setQueryData(keys.orgs(), orgs);
  if (org) await qc.prefetchQuery({ queryKey: keys.members(org.id), queryFn: () => listMembers({ ctx, orgId: org.id }) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Members</h1>
      {org ? (
        <MembersSettings orgs={orgs} org={org} />
      ) : (
        <p className="muted">You belong to no organization. Ask an owner or admin of one to invite you.</p>
      )}
    </HydrationBoundary>
  );
}
