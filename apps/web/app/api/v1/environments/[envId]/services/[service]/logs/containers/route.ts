import { json, route } from "@/lib/api";
import { logReader } from "@/lib/logs/engine";
import { serviceLogContainers } from "@/lib/logs/service-logs";

/** The service's containers whose logs can be read: active, older or draining, and hooks'. */
export const GET = route<{ envId: string; service: string }>(async ({ ctx, params }) =>
  json(await serviceLogContainers({ ctx, envId: params.envId, name: params.service, reader: logReader() })),
);
