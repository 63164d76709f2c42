import { createApp, listApps } from "@levelrail/services/app/app";
import { created, json, route } from "@/lib/api";

export const GET = route(async ({ ctx }) => json(await listApps({ ctx })));

export const POST = route(async ({ ctx, body }) => created(await createApp({ ctx, input: await body() })));
