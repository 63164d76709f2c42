import { and, desc, eq, isNotNull, isNull, ne, or } from "drizzle-orm";
import { notifyDesired } from "@levelrail/db/notify";
import { type WithheldItem, preview, previewSettings } from "@levelrail/db/schema/git";
import { environment } from "@levelrail/db/schema/orgs";
import { LevelrailError } from "@levelrail/spec/errors";
import { PREVIEWS_KEY } from "@levelrail/spec/keys";
import { previewDomainProblem, previewSettingsInput, previewUrl } from "@levelrail/spec/preview";
import { audit, fieldNames } from "../audit/record";
import { type Ctx, MAX_LIST_ROWS, parse } from "../context";
import { getProject } from "../project/list";
import { type Approval, approvalOf } from "./approval";

export interface PreviewSettingsView {
  baseEnvironmentId: string;
  domain: string;
  max: number;
  ttlHours: number;
  updatedAt: string;
}

/** One pull or merge request's preview, as the API and the project page show it. */
export interface PreviewView {
  id: string;
  number: number;
  repo: string;
  headRef: string;
  headCommit: string;
  state: "open" | "closed" | "refused";
  message: string;
  environmentId: string | null;
  environmentName: string | null;
  /** Where it routes (`pr-<n>.<domain>`), while it is open. */
  url: string | null;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** The head is in another repository (a fork). */
  fork: boolean;
  /** The forge does not mark the author as a member of the repository. */
  outsider: boolean;
  /** A fork's or an outsider's request waits for a member's approval of each head commit. */
  approval: Approval;
  approvedCommit: string | null;
  approvedBy: string | null;
  /** What the environment's clone left out of the base (a fork's or an outsider's), by service and key. */
  withheld: WithheldItem[];
}

type PreviewRow = typeof preview.$inferSelect;

/** One preview row as the API shows it. */
export function toPreviewView(r: PreviewRow, envName: string | null, domain: string | null): PreviewView {
  return {
    id: r.id,
    number: r.number,
    repo: r.repo,
    headRef: r.headRef,
    headCommit: r.headCommit,
    state: r.state,
    message: r.message,
    environmentId: r.environmentId,
    environmentName: envName,
    url: r.state === "open" && domain !== null ? previewUrl(r.number, domain) : null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    closedAt: r.closedAt?.toISOString() ?? null,
    fork: r.fork,
    outsider: r.outsider,
    approval: approvalOf(r),
    approvedCommit: r.approvedCommit,
    approvedBy: r.approvedBy,
    withheld: r.withheld ?? [],
  };
}

export interface ProjectPreviews {
  settings: PreviewSettingsView | null;
  previews: PreviewView[];
}

/**
 * `GET /api/v1/projects/{id}/previews`: the project's preview settings (null: not set up) and its
 * previews, newest first: every one open (waiting for approval included), refused or still holding an
 * environment, then the latest closed ones, at most 1000 in all (closed rows pile up; they never make it fail).
 */
export async function getProjectPreviews({ ctx, projectId }: { ctx: Ctx; projectId: string }): Promise<ProjectPreviews> {
  const p = await getProject(ctx, projectId, "preview.read");
  const [s] = await ctx.db.select().from(previewSettings).where(and(eq(previewSettings.projectId, p.id), eq(previewSettings.orgId, p.orgId)));
  const mine = and(eq(preview.projectId, p.id), eq(preview.orgId, p.orgId));
  const select = () => ctx.db.select({ p: preview, envName: environment.name }).from(preview).leftJoin(environment, eq(environment.id, preview.environmentId));
  // Open ones are bounded by the maximum and the cap on waiting ones, refused ones by the sweep; closed ones fill what is left.
  const live = await select()
    .where(and(mine, or(ne(preview.state, "closed"), isNotNull(preview.environmentId))))
    .orderBy(desc(preview.updatedAt))
    .limit(MAX_LIST_ROWS);
  const closed =
    live.length < MAX_LIST_ROWS
      ? await select()
          .where(and(mine, eq(preview.state, "closed"), isNull(preview.environmentId)))
          .orderBy(desc(preview.updatedAt))
          .limit(MAX_LIST_ROWS - live.length)
      : [];
  const rows = [...live, ...closed].sort((x, y) => y.p.updatedAt.getTime() - x.p.updatedAt.getTime());
  const settings = s ? { baseEnvironmentId: s.baseEnvironmentId, domain: s.domain, max: s.max, ttlHours: s.ttlHours, updatedAt: s.updatedAt.toISOString() } : null;
  return {
    settings,
    previews: rows.map(({ p: r, envName }) => toPreviewView(r, envName, settings?.domain ?? null)),
  };
}

/**
 * `PUT /api/v1/projects/{id}/previews`: which environment previews are cloned from, the domain they
 * route under (a base domain of the installation, checked without connecting), at most how many are
 * open, and their time to live. Replaces the whole set.
 */
export async function putPreviewSettings({ ctx, projectId, input }: { ctx: Ctx; projectId: string; input: unknown }): Promise<ProjectPreviews> {
  const p = await getProject(ctx, projectId, "preview.write");
  const s = parse(previewSettingsInput, input);
  const [base] = await ctx.db
    .select({ id: environment.id })
    .from(environment)
    .where(and(eq(environment.id, s.baseEnvironmentId), eq(environment.projectId, p.id), eq(environment.orgId, p.orgId)));
  if (!base) throw new LevelrailError("invalid_input", "baseEnvironmentId: no such environment in this project", { field: "baseEnvironmentId" });
  const problem = previewDomainProblem(s.domain, ctx.baseDomains ?? []);
  if (problem) throw new LevelrailError("invalid_input", `domain: ${problem}`, { field: "domain" });
  await ctx.db.transaction(async (tx) => {
    const values = { ...s, updatedAt: new Date() };
    await tx
      .insert(previewSettings)
      .values({ projectId: p.id, orgId: p.orgId, ...values })
      .onConflictDoUpdate({ target: previewSettings.projectId, set: values });
    await notifyDesired(tx, PREVIEWS_KEY);
    await audit(ctx, tx, { orgId: p.orgId, action: "preview.settings", target: { type: "project", id: p.id, name: p.name }, fields: fieldNames(s) });
  });
  return getProjectPreviews({ ctx, projectId: p.id });
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema the PUT parses its input with. */
export { previewSettingsInput };
