import { listReleases } from "@levelrail/services/release/deploy";
import { route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

export const GET = route<{ envId: string; service: string }>(async ({ ctx, req, params }) => conditionalJson(req, await listReleases({ ctx, envId: params.envId, name: params.service })));
