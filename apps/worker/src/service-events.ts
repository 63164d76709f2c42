import type { Db } from "@levelrail/db/client";
import { notifyDesired } from "@levelrail/db/notify";
import { serviceEvent } from "@levelrail/db/schema/observability";
import { notificationsKey } from "@levelrail/spec/keys";
import type { ServiceEventRecorder } from "./controllers/application/crash-loop";

/**
 * The PostgreSQL side of the crash-loop events: one row per transition (`service_event`). A crash
 * loop that starts wakes its organization's outbox at the commit, which enqueues its notifications.
 */
export function pgServiceEvents(db: Db): ServiceEventRecorder {
  return {
    async record(e) {
      await db
        .transaction(async (tx) => {
          await tx.insert(serviceEvent).values(e);
          if (e.kind === "crash_loop_started") await notifyDesired(tx, notificationsKey(e.orgId));
        })
        .catch((err: unknown) => {
          // The service was deleted while the pass worked: nothing to record it for.
          if ((err as { cause?: { code?: string } }).cause?.code === "23503") return;
          throw err;
        });
    },
  };
}
