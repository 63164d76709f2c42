import { createApp, listApps } from "@levelrail/services/app/app";
import { created, route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

type Params = { envId: string };

/** The environment's apps, by name, with their service counts. */
export const GET = route<Params>(async ({ ctx, req, params }) => conditionalJson(req, await listApps({ ctx, envId: params.envId })));

/** Body `{"name": "shop"}`. */
export const POST = route<Params>(async ({ ctx, params, body }) => created(await createApp({ ctx, envId: params.envId, input: await body() })));
