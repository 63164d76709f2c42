import { getDatabase } from "@levelrail/services/database/view";
import { deleteDatabase, patchDatabase } from "@levelrail/services/database/write";
import { json, noContent, route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

type Params = { envId: string; db: string };

export const GET = route<Params>(async ({ ctx, req, params }) => conditionalJson(req, await getDatabase({ ctx, envId: params.envId, name: params.db })));

/** Body `{"backupSchedule": {cron, targetId, keep} | null}`. */
export const PATCH = route<Params>(async ({ ctx, params, body }) => json(await patchDatabase({ ctx, envId: params.envId, name: params.db, input: await body() })));

/** Its containers go; its volume is kept unless `?dropData=true`. */
export const DELETE = route<Params>(async ({ ctx, req, params }) => {
  await deleteDatabase({ ctx, envId: params.envId, name: params.db, dropData: new URL(req.url).searchParams.get("dropData") === "true" });
  return noContent();
});
