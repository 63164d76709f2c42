"use client";
// Settings › Env tiers: a project's tier editor and one of its environments', with a selector for
// each. Apart from TierEnvEditor's module, so a page that edits one tier (an environment's, or the
// organization's on Settings › Organization env) does not load the selectors.
import { useState } from "react";
import { useCurrentEnvironment, useEnvironments, useProjects } from "@/lib/queries";
import type { CurrentEnvironment } from "@/lib/types";
import { Alert } from "./alert";
import { TierEnvEditor } from "./tier-env-settings";

/**
 * A project's env vars and those of one of its environments, with a selector for each. Both start
 * at the current environment (the header's) and follow it when it changes, until the operator
 * picks another here.
 */
export function ProjectEnvSettings() {
  const current = useCurrentEnvironment().data;
  return <ProjectEnvSettingsFrom key={current?.environment.id ?? ""} start={current} />;
}

function ProjectEnvSettingsFrom({ start }: { start: CurrentEnvironment | undefined }) {
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
    </div>
  );
}
