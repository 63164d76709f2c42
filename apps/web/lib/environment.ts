import "server-only";
import type { QueryClient } from "@tanstack/react-query";
import { cache } from "react";
import { listApps } from "@levelrail/services/app/app";
import type { Ctx } from "@levelrail/services/context";
import { getCurrentEnvironment } from "@levelrail/services/operator/preference";
import { getEnvironment, getProject, listEnvironments, toProjectView } from "@levelrail/services/project/list";
import { listServices, listServicesPage } from "@levelrail/services/service/view";
import { orNotFound } from "./found";
import { SERVICES_PAGE, keys } from "./keys";

/** The operator's current environment of this render (remembered, or the fallback), or null; one lookup per request. */
export const currentEnvironment = cache((ctx: Ctx) => getCurrentEnvironment({ ctx }));

/** An environment of the caller's with its project and its project's environments; 404 otherwise. */
export const environmentOf = cache(async (ctx: Ctx, envId: string) => {
  const environment = await orNotFound(getEnvironment({ ctx, envId }));
  const [project, siblings] = await Promise.all([getProject(ctx, environment.projectId), listEnvironments({ ctx, projectId: environment.projectId })]);
  return { environment, project: toProjectView(project), siblings };
});

/**
 * Where an old flat UI path (`/services/web`, `/apps/shop`) leads now: the environment of the
 * caller's service (or app) of that name, the current environment's when several have one; null
 * when none or several others do (the caller goes to the dashboard).
 */
export async function environmentNaming(ctx: Ctx, kind: "service" | "app", name: string): Promise<string | null> {
  const [services, current] = await Promise.all([listServices({ ctx }), currentEnvironment(ctx)]);
  const envIds = new Set(services.filter((s) => (kind === "service" ? s.name : s.app) === name).map((s) => s.environmentId));
  // An app without services yet is in no service's row: look for it in the current environment.
  if (kind === "app" && current && (await listApps({ ctx, envId: current.environment.id })).some((a) => a.name === name)) return current.environment.id;
  if (current && envIds.has(current.environment.id)) return current.environment.id;
  return envIds.size === 1 ? [...envIds][0]! : null;
}

/** Prefetches what EnvironmentFleet shows: the environment's apps and the first page of its services. */
export function prefetchFleet(qc: QueryClient, ctx: Ctx, envId: string) {
  return Promise.all([
    qc.prefetchQuery({ queryKey: keys.apps(envId), queryFn: () => listApps({ ctx, envId }) }),
    // Only the first page: the payload stays the same size however large the fleet.
    qc.prefetchQuery({
      queryKey: keys.servicesPage(envId, ""),
      queryFn: () => listServicesPage({ ctx, input: { environmentId: envId, limit: SERVICES_PAGE } }),
    }),
  ]);
}
