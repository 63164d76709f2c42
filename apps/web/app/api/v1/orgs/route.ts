import { createOrg } from "@levelrail/services/org/create";
import { listOrgs } from "@levelrail/services/org/list";
import { created, json, route } from "@/lib/api";
import { server } from "@/lib/server";

export const GET = route(async ({ ctx }) => json(await listOrgs({ ctx })));

/** Within LEVELRAIL_ORG_CREATION and LEVELRAIL_MAX_ORGS_PER_OPERATOR (409 naming the setting otherwise). */
export const POST = route(async ({ ctx, body }) => created(await createOrg({ ctx, input: await body(), policy: server().orgCreation })));
