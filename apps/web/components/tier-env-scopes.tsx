"use client";
// The Settings page's organization and project sections: their tier editors with the cards that
// belong to each scope. Apart from TierEnvEditor's module, so a page that edits one tier (an
// environment's) does not load the quota, security, SSO and preview cards.
import { type ReactNode, useState } from "react";
import type { QuotaKind } from "@levelrail/spec/lists";
import { useCurrentEnvironment, useEnvironments, useOrgs, useProjects } from "@/lib/queries";
import type { CurrentEnvironment } from "@/lib/types";
import { OrgSecurityCard } from "./org-security-card";
import { PreviewsCard } from "./previews-card";
import { QuotasCard } from "./quotas-card";
import { SsoCard } from "./sso-card";
import { Alert } from "./alert";
import { TierEnvEditor } from "./tier-env-settings";

/**
 * The organization's env vars (with a choice of organization when the operator belongs to several),
 * starting at the organization of the current environment (the header's). `quotaKinds` (QUOTA_KINDS)
 * and `quotasNote` (the Quotas card's fixed text) come from the server page.
 */
export function OrgEnvSettings({ quotaKinds, quotasNote }: { quotaKinds: readonly QuotaKind[]; quotasNote: ReactNode }) {
  const orgs = useOrgs();
  const current = useCurrentEnvironment().data;
  const [chosen, setChosen] = useState<string | undefined>();
  if (orgs.isError) return <Alert error={orgs.error} />;
  if (!orgs.data) return <p className="muted">Loading organizations…</p>;
  const org = orgs.data.find((o) => o.id === (chosen ?? current?.project.orgId)) ?? orgs.data[0];
  if (!org) return <p className="muted">You belong to no organization.</p>;
  return (
    <div className="stack">
      {orgs.data.length > 1 && (
        <div className="field narrow">
          <label htmlFor="org-select">Organization</label>
          <select id="org-select" value={org.id} onChange={(e) => setChosen(e.target.value)}>
            {orgs.data.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <TierEnvEditor
        tier="organization"
        id={org.id}
        title="Organization env"
        description={`Every service of the organization ${org.name} gets these, unless a higher tier sets the same key.`}
      />
      <QuotasCard org={org} kinds={quotaKinds} note={quotasNote} />
      <OrgSecurityCard org={org} />
      <SsoCard org={org} />
    </div>
  );
}

/**
 * A project's env vars and those of one of its environments, with a selector for each. Both start
 * at the current environment (the header's) and follow it when it changes, until the operator
 * picks another here. `previewsIntro`: the Previews card's text, rendered on the server.
 */
export function ProjectEnvSettings({ previewsIntro }: { previewsIntro: ReactNode }) {
  const current = useCurrentEnvironment().data;
  return <ProjectEnvSettingsFrom key={current?.environment.id ?? ""} start={current} previewsIntro={previewsIntro} />;
}

function ProjectEnvSettingsFrom({ start, previewsIntro }: { start: CurrentEnvironment | undefined; previewsIntro: ReactNode }) {
  const projects = useProjects();
  const [chosenProject, setChosenProject] = useState<string | undefined>(start?.project.id);
  const [chosenEnvironment, setChosenEnvironment] = useState<string | undefined>(start?.environment.id);
  const project = projects.data?.find((p) => p.id === chosenProject) ?? projects.data?.[0];
  const environments = useEnvironments(project?.id);
  const environment = environments.data?.find((e) => e.id === chosenEnvironment) ?? environments.data?.[0];

  if (projects.isError) return <Alert error={projects.error} />;
  if (!projects.data) return <p className="muted">Loading projects…</p>;
  if (!project) return <p className="muted">No projects yet.</p>;
  return (
    <div className="stack">
      <div className="row narrow-row">
        <div className="field">
          <label htmlFor="project-select">Project</label>
          <select
            id="project-select"
            value={project.id}
            onChange={(e) => {
              setChosenProject(e.target.value);
              setChosenEnvironment(undefined);
            }}
          >
            {projects.data.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="environment-select">Environment</label>
          <select
            id="environment-select"
            value={environment?.id ?? ""}
            onChange={(e) => setChosenEnvironment(e.target.value)}
            disabled={!environments.data?.length}
          >
            {!environments.data?.length && <option value="">{environments.isPending ? "Loading…" : "No environments"}</option>}
            {environments.data?.map((env) => (
              <option key={env.id} value={env.id}>
                {env.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <Alert error={environments.error} />
      <div className="columns">
        <TierEnvEditor
          tier="project"
          id={project.id}
          title="Project env"
          description={`Services of the project ${project.name}; overrides the organization's.`}
        />
        {environment && (
          <TierEnvEditor
            tier="environment"
            id={environment.id}
            title="Environment env"
            description={`Services of ${project.name} / ${environment.name}; overrides the project's.`}
          />
        )}
      </div>
      {environments.data && <PreviewsCard project={project} environments={environments.data} intro={previewsIntro} />}
    </div>
  );
}
