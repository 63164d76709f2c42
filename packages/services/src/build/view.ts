import { and, asc, desc, eq, gt } from "drizzle-orm";
import { build, buildLog, type BuildStatus, type BuildTrigger } from "@levelrail/db/schema/git";
import { LevelrailError } from "@levelrail/spec/errors";
import type { Ctx } from "../context";
import type { Action } from "../org/permissions";
import { findService } from "../service/view";

/** A build as the API and the UI show it. */
export interface BuildView {
  id: string;
  serviceId: string;
  /** The commit built (40 hex); null until the worker resolved the ref. */
  commit: string | null;
  ref: string;
  trigger: BuildTrigger;
  status: BuildStatus;
  /** Where a running build is (`fetching`, `building`, `deploying`), or the failing Dockerfile step of a failed one. */
  step: string | null;
  message: string;
  deploy: boolean;
  imageId: string | null;
  image: string | null;
  createdBy: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** From start to end (or to now for a running build); null before it starts. */
  durationMs: number | null;
}

/** One line of a build's log. */
export interface BuildLogLine {
  seq: number;
  at: string;
  line: string;
}

type BuildRow = typeof build.$inferSelect;
const MAX_LIST_ROWS = 100;
/** The most log lines one read answers (a build keeps at most 20 000). */
export const MAX_LOG_READ = 20_000;
export const FINISHED: readonly BuildStatus[] = ["succeeded", "failed", "cancelled", "superseded"];

export function buildView(b: BuildRow, now = Date.now()): BuildView {
  return {
    id: b.id,
    serviceId: b.serviceId,
    commit: b.commit,
    ref: b.ref,
    trigger: b.trigger,
    status: b.status,
    step: b.step,
    message: b.message,
    deploy: b.deploy,
    imageId: b.imageId,
    image: b.image,
    createdBy: b.createdBy,
    createdAt: b.createdAt.toISOString(),
    startedAt: b.startedAt?.toISOString() ?? null,
    finishedAt: b.finishedAt?.toISOString() ?? null,
    durationMs: b.startedAt ? (b.finishedAt?.getTime() ?? now) - b.startedAt.getTime() : null,
  };
}

/** The caller's service (by environment and name) with `action` checked. */
export const buildService = (ctx: Ctx, envId: string, name: string, action: Action) => findService(ctx, envId, name, action).then((r) => r.service);

/** One build of that service; another service's (or organization's) is a 404. */
export async function findBuild(ctx: Ctx, serviceId: string, id: string): Promise<BuildRow> {
  const [row] = /^[0-9a-f-]{36}$/i.test(id) ? await ctx.db.select().from(build).where(and(eq(build.id, id), eq(build.serviceId, serviceId))) : [];
  if (!row) throw new LevelrailError("not_found", "build not found");
  return row;
}

/** GET …/services/{service}/builds: newest first, `limit` at most 100. */
export async function listBuilds({ ctx, envId, name, limit }: { ctx: Ctx; envId: string; name: string; limit?: number }): Promise<BuildView[]> {
  const s = await buildService(ctx, envId, name, "build.read");
  const rows = await ctx.db
    .select()
    .from(build)
    .where(and(eq(build.serviceId, s.id), eq(build.orgId, s.orgId)))
    .orderBy(desc(build.createdAt))
    .limit(Math.min(limit ?? MAX_LIST_ROWS, MAX_LIST_ROWS));
  return rows.map((r) => buildView(r));
}

/** GET …/builds/{id}: the build and its log so far (redacted when it was written). */
export async function getBuild({ ctx, envId, name, id }: { ctx: Ctx; envId: string; name: string; id: string }): Promise<BuildView & { log: BuildLogLine[] }> {
  const s = await buildService(ctx, envId, name, "build.read");
  const b = await findBuild(ctx, s.id, id);
  return { ...buildView(b), log: await buildLogAfter(ctx, b.id, 0) };
}

/** The build's log lines after `seq` (oldest first). */
export async function buildLogAfter(ctx: Pick<Ctx, "db">, buildId: string, seq: number, limit = MAX_LOG_READ): Promise<BuildLogLine[]> {
  const rows = await ctx.db
    .select()
    .from(buildLog)
    .where(and(eq(buildLog.buildId, buildId), gt(buildLog.seq, seq)))
    .orderBy(asc(buildLog.seq))
    .limit(limit);
  return rows.map((r) => ({ seq: r.seq, at: r.at.toISOString(), line: r.line }));
}

/** A build's status now (the follower's end condition). */
export async function buildStatusOf(ctx: Pick<Ctx, "db">, buildId: string): Promise<BuildStatus | null> {
  const [r] = await ctx.db.select({ status: build.status }).from(build).where(eq(build.id, buildId));
  return r?.status ?? null;
}

/**
 * Follows a build's log: its lines so far, then each new one as the worker writes it (looked for every
 * `pollMs`), until the build has finished and its last lines are out, or `signal` aborts.
 */
export async function* followBuildLog(ctx: Pick<Ctx, "db">, buildId: string, signal: AbortSignal, pollMs = 300): AsyncGenerator<BuildLogLine> {
  let seq = 0;
  while (!signal.aborted) {
    const status = await buildStatusOf(ctx, buildId);
    const lines = await buildLogAfter(ctx, buildId, seq, 1000);
    for (const l of lines) {
      seq = l.seq;
      yield l;
    }
    if (lines.length === 1000) continue;
    // Finished before these lines were read: nothing more will come.
    if (status === null || FINISHED.includes(status)) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, pollMs);
      signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
    });
  }
}
