import { and, count, eq, ne } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { preview, previewSettings } from "@levelrail/db/schema/git";
import { normalizeRepo } from "@levelrail/spec/preview";
import { MAX_WAITING, awaitingMessage, holdsPlace, isAwaiting, waitsForApproval } from "../preview/approval";
import type { HookEvent } from "./parse";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
type PreviewRow = typeof preview.$inferSelect;

export type PreviewOutcome =
  | { kind: "ignored"; reason: string }
  /** `opened`: the preview was not open before this event (new, closed or refused). */
  | { kind: "open"; preview: PreviewRow; opened: boolean }
  | { kind: "refused"; preview: PreviewRow };

/**
 * What a pull or merge request event does to its preview, in the webhook's transaction. The project's
 * preview settings row is locked first, so events of one project are serialized: two webhooks racing
 * for one request make one preview (the row is also unique per project, repository and number), and
 * two requests racing for the last place under `max` get one place. Over `max` the preview is recorded
 * `refused` with the reason; a later event of the request tries again.
 */
export async function upsertPreview(
  tx: Tx,
  p: { orgId: string; projectId: string; repoUrl: string; event: Extract<HookEvent, { kind: "pr" }> },
): Promise<PreviewOutcome> {
  const e = p.event;
  const [settings] = await tx
    .select()
    .from(previewSettings)
    .where(and(eq(previewSettings.projectId, p.projectId), eq(previewSettings.orgId, p.orgId)))
    .for("update");
  if (!settings) return { kind: "ignored", reason: "previews are not set up for this project (PUT /api/v1/projects/{id}/previews)" };
  const repo = normalizeRepo(p.repoUrl);
  const mine = and(eq(preview.projectId, p.projectId), eq(preview.repo, repo), eq(preview.number, e.number), eq(preview.orgId, p.orgId));
  const now = new Date();
  const [existing] = await tx.select().from(preview).where(mine);
  // A replayed delivery (GitHub's delivery id is not signed, so a captured one can be sent again under a
  // new id): an event the forge stamped before the last one taken is old news, opening, moving or closing nothing.
  const last = existing?.lastEventAt ?? null;
  if (e.at && last && e.at.getTime() < last.getTime()) {
    return { kind: "ignored", reason: `an older event of request ${e.number} (updated ${e.at.toISOString()}, the preview has seen ${last.toISOString()}): an earlier delivery sent again; ignored` };
  }
  const lastEventAt = e.at ?? last;
  if (e.action === "closed") {
    const [row] = await tx
      .update(preview)
      .set({ state: "closed", closedAt: now, updatedAt: now, lastEventAt, message: `request ${e.providerAction === "merge" || e.providerAction === "merged" ? "merged" : "closed"}; deleting its environment` })
      .where(and(mine, ne(preview.state, "closed")))
      .returning();
    if (!row && existing && e.at) await tx.update(preview).set({ lastEventAt }).where(eq(preview.id, existing.id));
    return row ? { kind: "open", preview: row, opened: false } : { kind: "ignored", reason: `no open preview of request ${e.number}` };
  }
  // Once a fork's or an outsider's, always: a later event that leaves a field out does not make the request trusted.
  const trust = { fork: (existing?.fork ?? false) || e.fork, outsider: (existing?.outsider ?? false) || e.outsider };
  const head = { headRef: e.headRef, headCommit: e.headCommit, statusUrl: e.statusUrl ?? null, updatedAt: now, lastEventAt, ...trust };
  // Reopened: an approval given before the request was closed is forgotten with it (a member approves again).
  const reopened = existing?.state === "closed";
  const waiting = isAwaiting({ ...trust, headCommit: e.headCommit, approvedCommit: reopened ? null : (existing?.approvedCommit ?? null) });
  const waitMessage = waiting ? { message: awaitingMessage({ ...trust, headCommit: e.headCommit, headRepo: e.headRepo }) } : {};
  if (existing?.state === "open") {
    const [row] = await tx
      .update(preview)
      .set({ ...head, ...waitMessage })
      .where(eq(preview.id, existing.id))
      .returning();
    return { kind: "open", preview: row!, opened: false };
  }
  const [used] = await tx
    .select({ n: count() })
    .from(preview)
    .where(and(eq(preview.projectId, p.projectId), eq(preview.orgId, p.orgId), eq(preview.state, "open"), holdsPlace()));
  // A request waiting for approval takes no place (an outsider's many requests do not crowd the members' out); approving one counts it.
  // Waiting ones have a cap of their own, so they do not pile up.
  const [waitingNow] = waiting
    ? await tx
        .select({ n: count() })
        .from(preview)
        .where(and(eq(preview.projectId, p.projectId), eq(preview.orgId, p.orgId), eq(preview.state, "open"), waitsForApproval()))
    : [];
  const crowded = waiting && (waitingNow?.n ?? 0) >= MAX_WAITING;
  const full = (!waiting && (used?.n ?? 0) >= settings.max) || crowded;
  const state = full ? ("refused" as const) : ("open" as const);
  const message = crowded
    ? `quota_exceeded: the project has ${waitingNow?.n ?? 0} requests waiting for approval, at most ${MAX_WAITING}; approve or close some (a later event of this request tries again)`
    : full
      ? `quota_exceeded: the project has ${used?.n ?? 0} open previews, its maximum (${settings.max}); close one or raise the maximum`
      : (waitMessage.message ?? "");
  const [row] = await tx
    .insert(preview)
    .values({ orgId: p.orgId, projectId: p.projectId, repo, number: e.number, ...head, state, message })
    // Reopened: what an earlier clone withheld is forgotten with its environment (an untrusted preview adopts an environment only its own clone recorded).
    .onConflictDoUpdate({
      target: [preview.projectId, preview.repo, preview.number],
      set: { ...head, state, message, closedAt: null, builtCommit: null, reported: null, withheld: null, ...(reopened ? { approvedCommit: null, approvedBy: null } : {}) },
    })
    .returning();
  return full ? { kind: "refused", preview: row! } : { kind: "open", preview: row!, opened: true };
}
