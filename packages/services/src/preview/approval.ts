import { and, count, eq, isNotNull, isNull, ne, or } from "drizzle-orm";
import { z } from "zod";
import { notifyDesired } from "@levelrail/db/notify";
import { preview, previewSettings } from "@levelrail/db/schema/git";
import { environment } from "@levelrail/db/schema/orgs";
import { LevelrailError } from "@levelrail/spec/errors";
import { PREVIEWS_KEY } from "@levelrail/spec/keys";
import { isUuid } from "@levelrail/spec/rules";
import { audit } from "../audit/record";
import { type Ctx, parse } from "../context";
import { getProject } from "../project/list";
import { type PreviewView, toPreviewView } from "./settings";

/**
 * Previews of requests the product does not trust (docs/security.md, fork ↔ base repository): a
 * request whose head is in another repository (a fork), or whose author the forge does not mark as one
 * of the repository's own, builds nothing until a member allowed to deploy approves its head commit,
 * and its environment is cloned without the base's secrets, credentials, storage targets and database
 * attachments. An approval is for one commit: a new head commit waits again.
 */
export type Approval = "not-needed" | "awaiting" | "approved";

type TrustFields = { fork: boolean; outsider: boolean };

export const isUntrusted = (p: TrustFields) => p.fork || p.outsider;

/** Whether the preview waits for a member's approval of its head commit (nothing is cloned or built meanwhile). */
export const isAwaiting = (p: TrustFields & { headCommit: string; approvedCommit: string | null }) => isUntrusted(p) && p.approvedCommit !== p.headCommit;

export const approvalOf = (p: TrustFields & { headCommit: string; approvedCommit: string | null }): Approval =>
  !isUntrusted(p) ? "not-needed" : p.approvedCommit === p.headCommit ? "approved" : "awaiting";

/** What the preview shows while it waits: why, and what approves it. */
export function awaitingMessage(p: TrustFields & { headCommit: string; headRepo?: string }): string {
  const why = p.fork
    ? `the request comes from a fork${p.headRepo ? ` (${p.headRepo})` : ""}`
    : "the forge does not mark the request's author as a member of the repository";
  return `awaiting approval: ${why}; nothing is built until a member with deploy rights approves head commit ${p.headCommit.slice(0, 12)}, and its environment gets none of the base's secrets, credentials, storage targets or database attachments`;
}

/**
 * At most this many requests of a project wait for approval at once; a further one is recorded
 * `refused` saying so (waiting ones take no place under the maximum, so they would pile up unbounded).
 */
export const MAX_WAITING = 50;

/** Open previews waiting for approval with no environment: the ones `holdsPlace` leaves out (spelled out, a null approved commit included). */
export const waitsForApproval = () =>
  and(isNull(preview.environmentId), or(eq(preview.fork, true), eq(preview.outsider, true)), or(isNull(preview.approvedCommit), ne(preview.approvedCommit, preview.headCommit)));

/** Which open previews count against the project's maximum: all but those waiting for approval with no environment. */
export const holdsPlace = () => or(isNotNull(preview.environmentId), and(eq(preview.fork, false), eq(preview.outsider, false)), eq(preview.approvedCommit, preview.headCommit));

const approveInput = z
  .object({
    /** The head commit the member looked at: a request that moved on since is a 409, never approved unseen. */
    commit: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "must be the preview's head commit (40 hex)"),
  })
  .strict();

const notFound = () => new LevelrailError("not_found", "preview not found");

/**
 * `POST /api/v1/projects/{id}/previews/{previewId}/approve` `{commit}`: a member allowed to deploy in
 * the project (developer or above) approves the preview's head commit; the preview controller then
 * clones (withholding the base's secrets) and builds it. A viewer gets 403; another organization's
 * member, or a preview of another project, 404. Approving a head commit that is no longer the head is
 * a 409. Audited `preview.approve` in the same transaction.
 */
export async function approvePreview({ ctx, projectId, previewId, input }: { ctx: Ctx; projectId: string; previewId: string; input: unknown }): Promise<PreviewView> {
  const p = await getProject(ctx, projectId, "service.deploy");
  const { commit } = parse(approveInput, input);
  if (!isUuid(previewId)) throw notFound();
  await ctx.db.transaction(async (tx) => {
    // The project's preview settings first, as the webhook locks them: approvals and events of one project take turns.
    const [settings] = await tx.select({ max: previewSettings.max }).from(previewSettings).where(and(eq(previewSettings.projectId, p.id), eq(previewSettings.orgId, p.orgId))).for("update");
    const [row] = await tx
      .select()
      .from(preview)
      .where(and(eq(preview.id, previewId), eq(preview.projectId, p.id), eq(preview.orgId, p.orgId)))
      .for("update");
    if (!row) throw notFound();
    if (row.state !== "open") throw new LevelrailError("conflict", `the preview is ${row.state}; only an open one is approved`);
    if (!isUntrusted(row)) throw new LevelrailError("conflict", "this request's preview needs no approval: its head is in the repository and its author a member");
    if (row.headCommit !== commit) {
      throw new LevelrailError("conflict", `commit: the request's head is now ${row.headCommit.slice(0, 12)}, not ${commit.slice(0, 12)}; look at it and approve that`, { field: "commit" });
    }
    if (row.approvedCommit === commit) return;
    if (!row.environmentId) {
      const [used] = await tx
        .select({ n: count() })
        .from(preview)
        .where(and(eq(preview.projectId, p.id), eq(preview.orgId, p.orgId), eq(preview.state, "open"), holdsPlace()));
      if (settings && (used?.n ?? 0) >= settings.max) {
        throw new LevelrailError("quota_exceeded", `the project has ${used?.n ?? 0} open previews, its maximum (${settings.max}); close one or raise the maximum, then approve`);
      }
    }
    await tx
      .update(preview)
      .set({ approvedCommit: commit, approvedBy: ctx.actor.email, message: `head commit ${commit.slice(0, 12)} approved by ${ctx.actor.email}`, updatedAt: new Date() })
      .where(and(eq(preview.id, row.id), eq(preview.orgId, p.orgId)));
    await notifyDesired(tx, PREVIEWS_KEY);
    await audit(ctx, tx, { orgId: p.orgId, action: "preview.approve", target: { type: "preview", id: row.id, name: `#${row.number}` }, fields: ["approvedCommit"] });
  });
  const [r] = await ctx.db
    .select({ p: preview, envName: environment.name, domain: previewSettings.domain })
    .from(preview)
    .leftJoin(environment, eq(environment.id, preview.environmentId))
    .leftJoin(previewSettings, eq(previewSettings.projectId, preview.projectId))
    .where(and(eq(preview.id, previewId), eq(preview.orgId, p.orgId)));
  if (!r) throw notFound();
  return toPreviewView(r.p, r.envName, r.domain);
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema the approval parses its input with. */
export { approveInput };
