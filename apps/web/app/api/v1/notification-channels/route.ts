import { createChannel, listChannels } from "@levelrail/services/notifications/channels";
import { created, json, route } from "@/lib/api";

/** The organization's notification channels; a webhook's signing secret is answered once, on create. */
export const GET = route(async ({ ctx }) => json(await listChannels({ ctx })));

export const POST = route(async ({ ctx, body }) => created(await createChannel({ ctx, input: await body() })));
