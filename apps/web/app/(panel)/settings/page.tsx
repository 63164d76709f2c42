import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import Link from "@/components/link";
import { listBackupTargets } from "@levelrail/services/config/backup-targets";
import { listRegistryCredentials } from "@levelrail/services/config/registry-credentials";
import { getTierEnv } from "@levelrail/services/env/vars";
import { listGitCredentials } from "@levelrail/services/git/credentials";
import { listChannels } from "@levelrail/services/notifications/channels";
import { listOrgs } from "@levelrail/services/org/list";
import { getQuotas } from "@levelrail/services/org/quota";
import { getProjectPreviews } from "@levelrail/services/preview/settings";
import { listEnvironments, listProjects } from "@levelrail/services/project/list";
import { NOTIFICATION_EVENT_LABELS, QUOTA_KINDS } from "@levelrail/spec/lists";
import { GitCredentialsCard } from "@/components/git-credentials-card";
import { NotificationsCard } from "@/components/notifications-card";
import { BackupTargets, RegistryCredentials } from "@/components/org-config";
import { GitCredentialsIntro, NotificationsIntro, PreviewsIntro, QuotasNote } from "@/components/settings-text";
import { OrgEnvSettings, ProjectEnvSettings } from "@/components/tier-env-scopes";
import { currentEnvironment } from "@/lib/environment";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Settings · Levelrail" };

export default async function SettingsPage() {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  const [orgs, projects, current] = await Promise.all([listOrgs({ ctx }), listProjects({ ctx }), currentEnvironment(ctx)]);
  qc.setQueryData(keys.orgs(), orgs);
  qc.setQueryData(keys.projects(), projects);
  if (current) qc.setQueryData(keys.currentEnvironment(), current);
  // What the page shows first: the current environment (the header's), its project and organization.
  const org = orgs.find((o) => o.id === current?.project.orgId) ?? orgs[0];
  const project = projects.find((p) => p.id === current?.project.id) ?? projects[0];
  await Promise.all([
    qc.prefetchQuery({ queryKey: keys.backupTargets(), queryFn: () => listBackupTargets({ ctx }) }),
    qc.prefetchQuery({ queryKey: keys.registryCredentials(), queryFn: () => listRegistryCredentials({ ctx }) }),
    qc.prefetchQuery({ queryKey: keys.notificationChannels(), queryFn: () => listChannels({ ctx }) }),
    org && qc.prefetchQuery({ queryKey: keys.tierEnv("organization", org.id), queryFn: () => getTierEnv({ ctx, tier: "organization", id: org.id }) }),
    org && qc.prefetchQuery({ queryKey: keys.gitCredentials(org.id), queryFn: () => listGitCredentials({ ctx, orgId: org.id }) }),
    org && qc.prefetchQuery({ queryKey: keys.quotas(org.id), queryFn: () => getQuotas({ ctx, orgId: org.id }) }),
    project && qc.prefetchQuery({ queryKey: keys.tierEnv("project", project.id), queryFn: () => getTierEnv({ ctx, tier: "project", id: project.id }) }),
    project && qc.prefetchQuery({ queryKey: keys.previews(project.id), queryFn: () => getProjectPreviews({ ctx, projectId: project.id }) }),
    project &&
      (async () => {
        const environments = await listEnvironments({ ctx, projectId: project.id });
        qc.setQueryData(keys.environments(project.id), environments);
        const environment = environments.find((e) => e.id === current?.environment.id) ?? environments[0];
        if (environment) {
          await qc.prefetchQuery({
            queryKey: keys.tierEnv("environment", environment.id),
            queryFn: () => getTierEnv({ ctx, tier: "environment", id: environment.id }),
          });
        }
      })(),
  ]);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Settings</h1>
      <p>
        <Link href="/settings/members">Members and invitations</Link>
        {" · "}
        <Link href="/settings/api">API reference</Link>
      </p>
      <p className="muted">
        Env vars by tier, lowest precedence first: organization, project, environment. A service&apos;s own env, its secrets and
        its storage attachment override them.
      </p>
      {/* The lists and the cards' fixed text reach the client cards as props: not in the page's JavaScript. */}
      <OrgEnvSettings quotaKinds={QUOTA_KINDS} quotasNote={<QuotasNote />} />
      <ProjectEnvSettings previewsIntro={<PreviewsIntro />} />
      <BackupTargets />
      <RegistryCredentials />
      <GitCredentialsCard intro={<GitCredentialsIntro orgName={org?.name} />} />
      <NotificationsCard eventLabels={NOTIFICATION_EVENT_LABELS} intro={<NotificationsIntro />} />
      <section className="card" aria-labelledby="audit-link-title">
        <h2 id="audit-link-title">Audit log</h2>
        <p className="muted">
          Every change in the organization: who, what, when and from where. <Link href="/settings/audit">Open the audit log</Link>
        </p>
      </section>
    </HydrationBoundary>
  );
}
