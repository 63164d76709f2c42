import { deleteChannel, getChannel, patchChannel } from "@levelrail/services/notifications/channels";
import { json, noContent, route } from "@/lib/api";

export const GET = route<{ id: string }>(async ({ ctx, params }) => json(await getChannel({ ctx, id: params.id })));

export const PATCH = route<{ id: string }>(async ({ ctx, params, body }) => json(await patchChannel({ ctx, id: params.id, input: await body() })));

export const DELETE = route<{ id: string }>(async ({ ctx, params }) => {
  await deleteChannel({ ctx, id: params.id });
  return noContent();
});
