import { doraMetrics } from "@levelrail/services/metrics/dora";
import { route, searchInput } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

/** The four DORA figures with their bands for the fleet, each environment and each service; `?window=7d|30d|90d` (default 30d) ending at `?until=` (default now), `?environmentId=`, `?service=` (a name), `?serviceId=`, `?top=N` (only the N services with the most releases; `servicesTotal` counts them all). */
export const GET = route(async ({ ctx, req }) => conditionalJson(req, await doraMetrics({ ctx, input: searchInput(req, ["service", "serviceId", "environmentId", "window", "until", "top"]) })));
