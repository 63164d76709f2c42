import { createApp, listApps } from "@levelrail/services/app/app";
import { created, route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

export const GET = route(async ({ ctx, req }) => conditionalJson(req, await listApps({ ctx })));

export const POST = route(async ({ ctx, body }) => created(await createApp({ ctx, input: await body() })));
