import { deployMetrics } from "@levelrail/services/metrics/deploys";
import { route, searchInput } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

/** Deploys per day for the fleet and per service; `?environmentId=`, `?service=` (a name), `?serviceId=`, `?since=<ISO time>` (default: 30 days ago), `?samples=false` (no per-deploy samples), `?top=N` (only the N most deployed services; `servicesTotal` counts them all). */
export const GET = route(async ({ ctx, req }) => conditionalJson(req, await deployMetrics({ ctx, input: searchInput(req, ["service", "serviceId", "environmentId", "since", "samples", "top"]) })));
