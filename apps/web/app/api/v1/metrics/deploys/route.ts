import { deployMetrics } from "@levelrail/services/metrics/deploys";
import { json, route, searchInput } from "@/lib/api";

/** Deploys per day for the fleet and per service; `?service=`, `?since=<ISO time>` (default: 30 days ago). */
export const GET = route(async ({ ctx, req }) => json(await deployMetrics({ ctx, input: searchInput(req, ["service", "since"]) })));
