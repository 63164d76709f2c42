import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listGitCredentials } from "@levelrail/services/git/credentials";
import { listOrgs } from "@levelrail/services/org/list";
import { GitCredentialsCard } from "@/components/git-credentials-card";
import { GitCredentialsIntro } from "@/components/settings-text";
import { currentEnvironment } from "@/lib/environment";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Git credentials · Levelrail" };

/** Settings › Git credentials: the deploy keys and tokens of the current environment's organization (the card picks it the same way). */
export default async function GitCredentialsPage() {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  const [orgs, current] = await Promise.all([listOrgs({ ctx }), currentEnvironment(ctx)]);
  qc.setQueryData(keys.orgs(), orgs);
  if (current) qc.setQueryData(keys.currentEnvironment(), current);
  const org = orgs.find((o) => o.id === current?.project.orgId) ?? orgs[0];
  if (org) await qc.prefetchQuery({ queryKey: keys.gitCredentials(org.id), queryFn: () => listGitCredentials({ ctx, orgId: org.id }) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Git credentials</h1>
      <GitCredentialsCard intro={<GitCredentialsIntro orgName={org?.name} />} />
    </HydrationBoundary>
  );
}
