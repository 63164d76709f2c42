import "server-only";
import type { Ctx } from "@levelrail/services/context";
import { listOrgs } from "@levelrail/services/org/list";
import { listProjects } from "@levelrail/services/project/list";
import { currentEnvironment } from "./environment";

/** A settings page's `?org=` or `?project=`: the first value when the query repeats it. */
export type ScopeParams = Promise<Record<string, string | string[] | undefined>>;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The organization an organization's settings page shows: `?org=` (picked in the page's
 * ScopeSelect), else the current environment's (the header's), else the caller's first; with every
 * organization of the caller's, for the select. `org` is undefined when the caller belongs to none.
 */
export async function settingsOrg(ctx: Ctx, params: ScopeParams) {
  const asked = first((await params).org);
  const [orgs, current] = await Promise.all([listOrgs({ ctx }), currentEnvironment(ctx)]);
  const org = orgs.find((o) => o.id === asked) ?? orgs.find((o) => o.id === current?.project.orgId) ?? orgs[0];
  return { orgs, org, current };
}

/** The project a project's settings page shows: `?project=`, else the current environment's, else the first; with every project, for the select. */
export async function settingsProject(ctx: Ctx, params: ScopeParams) {
  const asked = first((await params).project);
  const [projects, current] = await Promise.all([listProjects({ ctx }), currentEnvironment(ctx)]);
  const project = projects.find((p) => p.id === asked) ?? projects.find((p) => p.id === current?.project.id) ?? projects[0];
  return { projects, project, current };
}
