import { and, desc, eq, gte, lt, lte, type SQL } from "drizzle-orm";
import { auditEntry, type AuditEntryRow } from "@levelrail/db/schema/audit";
import { z } from "zod";
import { type Ctx, orgOf, parse } from "../context";
import { authorize } from "../org/permissions";

/** One entry as the API answers it. */
export interface AuditEntryView {
  id: string;
  at: string;
  actor: { type: string; id: string | null; name: string };
  action: string;
  target: { type: string; id: string | null; name: string | null };
  fields: string[];
  sourceIp: string | null;
}

export const AUDIT_PAGE_MAX = 200;

const time = z.iso.datetime({ offset: true });
export const auditQuery = z
  .object({
    cursor: z.string().regex(/^[1-9][0-9]{0,15}$/, "a cursor from an earlier page").optional(),
    limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(50),
    /** An actor's id (a user's, a token's) or type (`user`, `token`, `cli`, `worker`). */
    actor: z.string().min(1).max(200).optional(),
    action: z.string().min(1).max(200).optional(),
    /** A target's id, or its type (`service`), or `type:name` (`service:web`). */
    target: z.string().min(1).max(300).optional(),
    since: time.optional(),
    until: time.optional(),
  })
  .strict();
export type AuditQuery = z.infer<typeof auditQuery>;

const ACTOR_TYPES = new Set(["user", "token", "cli", "worker"]);

/** The WHERE of one filtered page (pure apart from drizzle's builders; unit-tested through `auditFilter`). */
export function auditWhere(orgId: string, q: AuditQuery): SQL | undefined {
  const parts: (SQL | undefined)[] = [eq(auditEntry.orgId, orgId)];
  if (q.cursor) parts.push(lt(auditEntry.id, Number(q.cursor)));
  if (q.actor) parts.push(ACTOR_TYPES.has(q.actor) ? eq(auditEntry.actorType, q.actor as AuditEntryRow["actorType"]) : eq(auditEntry.actorId, q.actor));
  if (q.action) parts.push(eq(auditEntry.action, q.action));
  if (q.target) {
    const colon = q.target.indexOf(":");
    if (colon > 0) parts.push(eq(auditEntry.targetType, q.target.slice(0, colon)), eq(auditEntry.targetName, q.target.slice(colon + 1)));
    else if (/^[a-z-]+$/.test(q.target)) parts.push(eq(auditEntry.targetType, q.target));
    else parts.push(eq(auditEntry.targetId, q.target));
  }
  if (q.since) parts.push(gte(auditEntry.at, new Date(q.since)));
  if (q.until) parts.push(lte(auditEntry.at, new Date(q.until)));
  return and(...parts);
}

export function auditView(r: AuditEntryRow): AuditEntryView {
  return {
    id: String(r.id),
    at: r.at.toISOString(),
    actor: { type: r.actorType, id: r.actorId, name: r.actorName },
    action: r.action,
    target: { type: r.targetType, id: r.targetId, name: r.targetName },
    fields: r.fields,
    sourceIp: r.sourceIp,
  };
}

/** One page of an organization's audit log, newest first; `nextCursor` is null on the last page. */
export async function listAudit({ ctx, orgId, input }: { ctx: Ctx; orgId: string; input: unknown }): Promise<{ entries: AuditEntryView[]; nextCursor: string | null }> {
  const org = orgOf(ctx, orgId);
  authorize(ctx, "audit.read", { orgId: org });
  const q = parse(auditQuery, input);
  const rows = await ctx.db
    .select()
    .from(auditEntry)
    .where(auditWhere(org, q))
    .orderBy(desc(auditEntry.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return { entries: page.map(auditView), nextCursor: rows.length > q.limit && last ? String(last.id) : null };
}

/** Every entry the filters select, newest first, page by page (for the JSON-lines export). */
export async function* exportAudit({ ctx, orgId, input }: { ctx: Ctx; orgId: string; input: unknown }): AsyncGenerator<AuditEntryView> {
  const base = { ...(input as Record<string, unknown>), limit: String(AUDIT_PAGE_MAX) };
  let cursor: string | null = null;
  do {
    const page: { entries: AuditEntryView[]; nextCursor: string | null } = await listAudit({ ctx, orgId, input: cursor ? { ...base, cursor } : base });
    yield* page.entries;
    cursor = page.nextCursor;
  } while (cursor);
}
