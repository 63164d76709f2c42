import { rotateWebhookSecret } from "@levelrail/services/service/source";
import { json, route } from "@/lib/api";

/** A new webhook secret for the service's git source, answered once; the old one stops working. */
export const POST = route<{ envId: string; service: string }>(async ({ ctx, params }) => json(await rotateWebhookSecret({ ctx, envId: params.envId, name: params.service })));
