import { and, eq, ne, or } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { hookRun } from "@levelrail/db/schema/hooks";
import { service } from "@levelrail/db/schema/services";
import { type Fence, assertLeads, leads } from "./fence";
import { emitHookFailed } from "./notifications/emit";
import type { HookRecorder } from "./controllers/application/hooks";

/** Hook runs kept in PostgreSQL; with a `fence`, a run's writes land only while that worker leads (else `LostLeadError`). */
export function pgHookRecorder(db: Db, fence?: Fence): HookRecorder {
  return {
    async begin(run) {
      await assertLeads(db, fence);
      const [svc] = await db.select({ orgId: service.orgId }).from(service).where(eq(service.id, run.serviceId));
      if (!svc) throw new Error(`service ${run.serviceId} vanished`);
      return db.transaction(async (tx) => {
        // Any other run of this service that never finished was interrupted (the worker stopped during it, or its
        // release was superseded meanwhile): one service runs one hook at a time.
        await tx
          .update(hookRun)
          .set({ outcome: "error", finishedAt: new Date(), message: "interrupted: the worker stopped during this run" })
          .where(
            and(
              eq(hookRun.serviceId, run.serviceId),
              eq(hookRun.outcome, "running"),
              or(ne(hookRun.releaseId, run.releaseId), ne(hookRun.phase, run.phase), ne(hookRun.attempt, run.attempt)),
            ),
          );
        const [row] = await tx
          .insert(hookRun)
          .values({ orgId: svc.orgId, serviceId: run.serviceId, releaseId: run.releaseId, phase: run.phase, command: run.command, attempt: run.attempt })
          .onConflictDoUpdate({ target: [hookRun.releaseId, hookRun.phase, hookRun.attempt], set: { outcome: "running" } })
          .returning({ id: hookRun.id });
        return row!.id;
      });
    },
    async progress(runId, output) {
      const rows = await db.update(hookRun).set({ output }).where(and(eq(hookRun.id, runId), eq(hookRun.outcome, "running"), leads(fence))).returning({ id: hookRun.id });
      if (!rows.length) await assertLeads(db, fence);
    },
    async finish(runId, r) {
      const rows = await db.transaction(async (tx) => {
        const changed = await tx
          .update(hookRun)
          .set({ exitCode: r.exitCode, outcome: r.outcome, output: r.output, message: r.message, finishedAt: new Date() })
          .where(and(eq(hookRun.id, runId), leads(fence)))
          .returning({ id: hookRun.id });
        if (changed.length && r.outcome !== "succeeded") await emitHookFailed(tx, runId);
        return changed;
      });
      if (!rows.length) await assertLeads(db, fence);
    },
    async succeeded(releaseId, phase) {
      const rows = await db
        .select({ id: hookRun.id })
        .from(hookRun)
        .where(and(eq(hookRun.releaseId, releaseId), eq(hookRun.phase, phase), eq(hookRun.outcome, "succeeded")))
        .limit(1);
      return rows.length > 0;
    },
  };
}
