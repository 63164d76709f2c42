import { listBackups } from "@levelrail/services/database/view";
import { requestBackup } from "@levelrail/services/database/backups";
import { accepted, route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

type Params = { envId: string; db: string };

/** Newest first; `?limit=`. Conditional on its ETag (polled while a backup runs). */
export const GET = route<Params>(async ({ ctx, req, params }) => {
  const limit = Number(new URL(req.url).searchParams.get("limit") ?? "") || undefined;
  return conditionalJson(req, await listBackups({ ctx, envId: params.envId, name: params.db, ...(limit ? { limit } : {}) }));
});

/** Back up now (body `{targetId?}`, default the schedule's target): 202 with the backup. */
export const POST = route<Params>(async ({ ctx, params, body }) => accepted(await requestBackup({ ctx, envId: params.envId, name: params.db, input: await body() })));
