import { listReleases } from "@levelrail/services/release/deploy";
import { route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

export const GET = route<{ name: string }>(async ({ ctx, req, params }) => conditionalJson(req, await listReleases({ ctx, name: params.name })));
