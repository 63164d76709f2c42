import { sendTest } from "@levelrail/services/notifications/deliveries";
import { json, route } from "@/lib/api";

/** "Send test": delivers a test notification now and answers its delivery (status, lastError). */
export const POST = route<{ id: string }>(async ({ ctx, params }) => json(await sendTest({ ctx, id: params.id })));
