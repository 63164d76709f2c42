"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useParams, useRouter } from "next/navigation";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { environmentHref } from "@/lib/paths";
import { useCurrentEnvironment, useEnvironment, useEnvironments, useProjects } from "@/lib/queries";
import type { CurrentEnvironment, EnvironmentItem } from "@/lib/types";
import { Alert } from "./alert";

/** The environment a project opens in: its `production`, or its first. */
const defaultOf = (environments: EnvironmentItem[]) => environments.find((e) => e.name === "production") ?? environments[0];

/**
 * The project and environment selectors of the header. They show the environment of the page
 * (under /environments/{envId}) or else the operator's current one; a choice is remembered
 * server-side (PUT /api/v1/me/environment), and the page follows it.
 */
export function EnvironmentSwitcher() {
  const router = useRouter();
  const qc = useQueryClient();
  const pageEnvId = useParams<{ envId?: string }>().envId;
  const current = useCurrentEnvironment();
  const pageEnv = useEnvironment(pageEnvId ?? "", pageEnvId !== undefined);
  const shown = pageEnvId !== undefined ? pageEnv.data : current.data?.environment;
  const projects = useProjects();
  const environments = useEnvironments(shown?.projectId);

  const choose = useMutation({
    mutationFn: async (choice: { environmentId: string } | { projectId: string }) => {
      let environmentId: string | undefined;
      if ("environmentId" in choice) environmentId = choice.environmentId;
      else {
        const list = await qc.fetchQuery({
          queryKey: keys.environments(choice.projectId),
          queryFn: () => api<EnvironmentItem[]>(`/projects/${encodeURIComponent(choice.projectId)}/environments`),
        });
        environmentId = defaultOf(list)?.id;
        if (!environmentId) throw new Error("that project has no environment yet; create one through the API first");
      }
      return api<CurrentEnvironment>("/me/environment", { method: "PUT", body: { environmentId } });
    },
    onSuccess: (chosen) => {
      qc.setQueryData(keys.currentEnvironment(), chosen);
      // A page of another environment (a service, an app) may not exist in this one: go to its page.
      if (pageEnvId !== undefined) router.push(environmentHref(chosen.environment.id));
      else router.refresh();
    },
  });

  if (!shown || !projects.data) return null;
  return (
    <div className="switcher" role="group" aria-label="Project and environment">
      <select aria-label="Project" value={shown.projectId} disabled={choose.isPending} onChange={(e) => choose.mutate({ projectId: e.target.value })}>
        {projects.data.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <span aria-hidden="true">/</span>
      <select
        aria-label="Environment"
        value={shown.id}
        disabled={choose.isPending || !environments.data}
        onChange={(e) => choose.mutate({ environmentId: e.target.value })}
      >
        {(environments.data ?? [shown]).map((env) => (
          <option key={env.id} value={env.id}>
            {env.name}
          </option>
        ))}
      </select>
      {choose.isError && (
        <Alert inline>
          {choose.error.message}
        </Alert>
      )}
    </div>
  );
}
