import { listDatabases } from "@levelrail/services/database/view";
import { createDatabase } from "@levelrail/services/database/write";
import { created, route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

type Params = { envId: string };

/** The environment's managed databases, by name (conditional on its ETag: polled). */
export const GET = route<Params>(async ({ ctx, req, params }) => conditionalJson(req, await listDatabases({ ctx, envId: params.envId })));

/** Body `{name, engine: "postgres", version, image?, backupSchedule?}` (docs/operating/databases-and-backups.md). */
export const POST = route<Params>(async ({ ctx, params, body }) => created(await createDatabase({ ctx, envId: params.envId, input: await body() })));
