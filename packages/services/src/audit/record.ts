import { eq } from "drizzle-orm";
import { auditEntry, type AuditActorType } from "@levelrail/db/schema/audit";
import { user } from "@levelrail/db/schema/auth";
import type { Db } from "@levelrail/db/client";
import type { Ctx } from "../context";

type Tx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

/** Who made a change, as the audit log names them. */
export interface AuditActor {
  type: AuditActorType;
  id: string | null;
  /** A display name: an email, `token <name> of <email>`, `cli`, `worker`. */
  name: string;
}

/** Who made the change and from where: set by each entrypoint (web route, CLI, worker) on its `ctx`. */
export interface AuditSource {
  actor: AuditActor;
  /** The caller's address (the web app's resolved client address); null off the web. */
  ip: string | null;
}

/** What one change did: `action` is `<target type>.<verb>`; `fields` are names only, never values. */
export interface AuditChange {
  orgId: string | null;
  action: string;
  target: { type: string; id?: string | null; name?: string | null };
  fields?: readonly string[];
}

/** Without a source (a test, a caller that set none), the change is the signed-in user's. */
export function sourceOf(ctx: Pick<Ctx, "actor" | "audit">): AuditSource {
  return ctx.audit ?? { actor: { type: "user", id: ctx.actor.userId, name: ctx.actor.email }, ip: null };
}

/** The names a change set, sorted and unique: the keys of an input object (`undefined` ones left out). */
export function fieldNames(input: unknown): string[] {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return [];
  return [...new Set(Object.entries(input).filter(([, v]) => v !== undefined).map(([k]) => k))].sort();
}

/**
 * Records one change, in the caller's transaction `tx`: the entry commits with the change or not at
 * all, so a refused or failed request leaves none. Every write verb calls it once.
 */
export async function audit(ctx: Pick<Ctx, "actor" | "audit">, tx: Tx, change: AuditChange): Promise<void> {
  await recordAudit(tx, sourceOf(ctx), change);
}

/** The same for a caller with no `ctx` (the CLI's admin commands, the worker's schedules). */
export async function recordAudit(tx: Tx, source: AuditSource, change: AuditChange): Promise<void> {
  await tx.insert(auditEntry).values({
    orgId: change.orgId,
    actorType: source.actor.type,
    actorId: source.actor.id,
    actorName: source.actor.name,
    action: change.action,
    targetType: change.target.type,
    targetId: change.target.id ?? null,
    targetName: change.target.name ?? null,
    fields: [...new Set(change.fields ?? [])].sort(),
    sourceIp: source.ip,
  });
}

/** The CLI on the host, acting for an operator when it names one. */
export const cliSource = (operator?: { id: string; email: string }): AuditSource => ({
  actor: { type: "cli", id: operator?.id ?? null, name: operator ? `cli (${operator.email})` : "cli" },
  ip: null,
});

/** The worker, acting on its own (a backup schedule, the retention job). */
export const workerSource = (runner: string): AuditSource => ({ actor: { type: "worker", id: runner, name: "worker" }, ip: null });

/** A user's email, to name them as a target (a member), or null when they are gone. */
export async function emailOf(tx: Tx, userId: string): Promise<string | null> {
  const [u] = await tx.select({ email: user.email }).from(user).where(eq(user.id, userId));
  return u?.email ?? null;
}
