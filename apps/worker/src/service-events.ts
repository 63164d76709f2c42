import type { Db } from "@levelrail/db/client";
import { serviceEvent } from "@levelrail/db/schema/observability";
import type { ServiceEventRecorder } from "./controllers/application/crash-loop";

/** The PostgreSQL side of the crash-loop events: one row per transition (`service_event`). */
export function pgServiceEvents(db: Db): ServiceEventRecorder {
  return {
    async record(e) {
      await db
        .insert(serviceEvent)
        .values(e)
        .catch((err: unknown) => {
          // The service was deleted while the pass worked: nothing to record it for.
          if ((err as { cause?: { code?: string } }).cause?.code === "23503") return;
          throw err;
        });
    },
  };
}
