import { createHash } from "node:crypto";
import { and, desc, eq, isNotNull, or, sql } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { notifyDesired } from "@levelrail/db/notify";
import { type GitProvider, gitDelivery, gitSource } from "@levelrail/db/schema/git";
import { environment } from "@levelrail/db/schema/orgs";
import { service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { PREVIEWS_KEY } from "@levelrail/spec/keys";
import { isUuid } from "@levelrail/spec/rules";
import { type AuditSource, recordAudit } from "../audit/record";
import { enqueueBuild } from "../build/enqueue";
import type { SecretsKit } from "../env/sources";
import { type HookEvent, PayloadError, parseEvent, payloadOf, tracks } from "./parse";
import { statusUrlOf } from "../preview/provider-api";
import { repoPathOf } from "@levelrail/spec/preview";
import { approvalOf } from "../preview/approval";
import { upsertPreview } from "./preview-event";
import { type HookHeaders, deliveryOf, eventOf, providerOf, verifySignature } from "./signature";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
type SourceRow = typeof gitSource.$inferSelect;

/** The largest webhook body taken; a provider's push of many commits stays far below it. */
export const MAX_HOOK_BYTES = 1024 * 1024;

export interface HookRequest {
  sourceId: string;
  headers: HookHeaders;
  /** The raw body, exactly as sent (the signature covers these bytes). */
  body: Uint8Array;
}

/** The answer: a status and a JSON body saying what was done or ignored, and why. Never the secret. */
export interface HookAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface HookDeps {
  db: Db;
  kit: SecretsKit;
}

const notFound = () => new LevelrailError("not_found", "no git source with this id");

/**
 * `POST /api/v1/hooks/git/{sourceId}` (docs/operating/git-builds-and-previews.md#the-webhook-what-to-paste-into-the-forge): public, authenticated by the source's webhook
 * secret. Unknown source: 404. Missing or wrong signature: 401, nothing written. A delivery id seen
 * before: 200 `{duplicate: true}`, nothing built (the delivery is recorded in the transaction of
 * what it causes). A push to the tracked branch queues a build that deploys; a pull or merge request
 * opens, updates or closes the project's preview of it (the preview controller does the rest).
 */
export async function receiveGitHook(deps: HookDeps, req: HookRequest): Promise<HookAnswer> {
  if (req.body.byteLength > MAX_HOOK_BYTES) throw new LevelrailError("too_large", `body: larger than ${MAX_HOOK_BYTES / 1024} KiB`, { field: "body" });
  if (!isUuid(req.sourceId)) throw notFound();
  const [source] = await deps.db.select().from(gitSource).where(eq(gitSource.id, req.sourceId));
  if (!source) throw notFound();
  const provider = providerOf(req.headers);
  if (!provider) throw new LevelrailError("unauthenticated", "not a GitHub, Gitea or GitLab webhook (no X-GitHub-Event, X-Gitea-Event or X-Gitlab-Event header)");
  const secret = deps.kit.keyring.open(source.webhookSecretSealed);
  if (!verifySignature(provider, req.headers, req.body, secret)) {
    throw new LevelrailError("unauthenticated", `${signatureHeader(provider)}: missing or wrong; nothing was done`);
  }
  let event: HookEvent;
  try {
    event = parseEvent(provider, eventOf(provider, req.headers), payloadOf(req.body, req.headers.get("content-type")));
  } catch (err) {
    if (err instanceof PayloadError) throw new LevelrailError("invalid_input", `body: ${err.message}`, { field: "body" });
    throw err;
  }
  if (event.kind === "ping") return { status: 200, body: { ok: true, event: "ping" } };
  if (event.kind === "other") return { status: 200, body: { ignored: true, reason: `event ${event.event} is not push or a pull/merge request` } };
  const delivery = deliveryOf(provider, req.headers) ?? `body:${createHash("sha256").update(req.body).digest("hex")}`;
  const who: AuditSource = { actor: { type: "webhook", id: source.id, name: `webhook:${provider}` }, ip: null };
  return deps.db.transaction(async (tx) => {
    // One delivery of a source at a time: a push is judged against the pushes accepted before it.
    await tx.select({ id: gitSource.id }).from(gitSource).where(eq(gitSource.id, source.id)).for("update");
    // Stamped after the lock (not at the transaction's start), so the order of accepted pushes is the order they were judged in.
    const [fresh] = await tx
      .insert(gitDelivery)
      .values({ sourceId: source.id, deliveryId: delivery, receivedAt: sql`clock_timestamp()` })
      .onConflictDoNothing()
      .returning({ id: gitDelivery.deliveryId });
    if (!fresh) return { status: 200, body: { duplicate: true, delivery } };
    if (event.kind === "push") return onPush(tx, source, provider, event, who, delivery);
    return onRequest(tx, source, provider, event, who);
  });
}

function signatureHeader(p: GitProvider): string {
  return p === "github" ? "X-Hub-Signature-256" : p === "gitea" ? "X-Gitea-Signature" : "X-Gitlab-Token";
}

/**
 * Why a push is an old one sent again (a captured delivery replayed under a new delivery id), judged
 * by the forge's `before`/`after` chain of the pushes this source accepted: its commit is the one the
 * last accepted push moved the branch to, or one an accepted push moved the branch away from, and it
 * does not continue from the branch's last commit. A push that continues the chain (its `before` is
 * the last accepted `after`) is taken even to an older commit: that is a force-push back. Null: build it.
 */
async function replayed(tx: Tx, sourceId: string, e: Extract<HookEvent, { kind: "push" }>): Promise<string | null> {
  const [last] = await tx
    .select({ after: gitDelivery.after })
    .from(gitDelivery)
    .where(and(eq(gitDelivery.sourceId, sourceId), isNotNull(gitDelivery.after)))
    .orderBy(desc(gitDelivery.receivedAt))
    .limit(1);
  if (!last?.after) return null;
  if (e.commit === last.after) return `${e.commit.slice(0, 12)} is already the branch's last pushed commit; not built again`;
  if (e.before && e.before === last.after) return null;
  const [behind] = await tx
    .select({ after: gitDelivery.after })
    .from(gitDelivery)
    .where(and(eq(gitDelivery.sourceId, sourceId), or(eq(gitDelivery.before, e.commit), eq(gitDelivery.after, e.commit))))
    .limit(1);
  return behind ? `${e.commit.slice(0, 12)} is older than the branch's last pushed commit ${last.after.slice(0, 12)} (an earlier push sent again); not deployed` : null;
}

async function onPush(tx: Tx, source: SourceRow, provider: GitProvider, e: Extract<HookEvent, { kind: "push" }>, who: AuditSource, delivery: string): Promise<HookAnswer> {
  if (!tracks(source.ref, e.ref)) return { status: 200, body: { ignored: true, reason: `${e.ref} is not the tracked branch (${source.ref})` } };
  if (e.deleted) return { status: 200, body: { ignored: true, reason: `${e.ref} was deleted; nothing to build` } };
  const replay = await replayed(tx, source.id, e);
  if (replay) return { status: 200, body: { ignored: true, reason: replay } };
  await tx
    .update(gitDelivery)
    .set({ before: e.before || null, after: e.commit })
    .where(and(eq(gitDelivery.sourceId, source.id), eq(gitDelivery.deliveryId, delivery)));
  const b = await enqueueBuild(tx, { orgId: source.orgId, serviceId: source.serviceId, commit: e.commit, ref: source.ref, trigger: "push", createdBy: `webhook:${provider}`, deploy: true });
  await tx.update(gitSource).set({ lastSeenCommit: e.commit, updatedAt: new Date() }).where(and(eq(gitSource.id, source.id), eq(gitSource.orgId, source.orgId)));
  const [s] = await tx.select({ name: service.name }).from(service).where(eq(service.id, source.serviceId));
  await recordAudit(tx, who, { orgId: source.orgId, action: "build.create", target: { type: "service", id: source.serviceId, name: s?.name ?? null }, fields: ["commit", "ref"] });
  return { status: 202, body: { build: { id: b.id, commit: e.commit, ref: source.ref, trigger: "push", deploy: true } } };
}

async function onRequest(tx: Tx, source: SourceRow, provider: GitProvider, e: Extract<HookEvent, { kind: "pr" }>, who: AuditSource): Promise<HookAnswer> {
  if (e.action === "ignored") return { status: 200, body: { ignored: true, reason: `request action ${e.providerAction} changes no preview` } };
  const [where] = await tx
    .select({ projectId: environment.projectId })
    .from(service)
    .innerJoin(environment, eq(environment.id, service.environmentId))
    .where(and(eq(service.id, source.serviceId), eq(service.orgId, source.orgId)));
  if (!where) throw notFound();
  // The provider token goes with a status, so a status goes only to the source's own provider API,
  // built from its URL and the source's repository: a payload's `statuses_url` is never followed (a
  // signed payload may name any host).
  const api = source.apiProvider && source.apiUrl ? { provider: source.apiProvider, url: source.apiUrl } : null;
  const { statusUrl: _fromPayload, ...rest } = e;
  const statusUrl = api && e.action !== "closed" ? statusUrlOf(api, repoPathOf(source.url) || e.repoPath, e.headCommit) : undefined;
  const event = statusUrl ? { ...rest, statusUrl } : rest;
  const outcome = await upsertPreview(tx, { orgId: source.orgId, projectId: where.projectId, repoUrl: source.url, event });
  if (outcome.kind === "ignored") return { status: 200, body: { ignored: true, reason: outcome.reason } };
  await notifyDesired(tx, PREVIEWS_KEY);
  await recordAudit(tx, who, { orgId: source.orgId, action: `preview.${outcome.kind === "refused" ? "refuse" : e.action === "closed" ? "close" : outcome.opened ? "open" : "update"}`, target: { type: "preview", id: outcome.preview.id, name: `#${e.number}` }, fields: ["headCommit"] });
  const view = { id: outcome.preview.id, number: e.number, state: outcome.preview.state, headCommit: outcome.preview.headCommit, approval: approvalOf(outcome.preview), message: outcome.preview.message };
  // Over the project's quota: a 409 (the provider's delivery log shows it), recorded on the preview, never dropped silently.
  if (outcome.kind === "refused") return { status: 409, body: { preview: view, error: { code: "quota_exceeded", message: outcome.preview.message } } };
  return { status: 202, body: { preview: view, provider } };
}
