import { restoreBackup } from "@levelrail/services/database/backups";
import { accepted, route } from "@/lib/api";

/** `{backupId, into}` or `{backupId, replace: true}` (+ `acceptUnverified`): 202 with `{restore, database}`. */
export const POST = route<{ envId: string; db: string }>(async ({ ctx, params, body }) =>
  accepted(await restoreBackup({ ctx, envId: params.envId, name: params.db, input: await body() })),
);
