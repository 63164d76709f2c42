import { isUuid } from "@levelrail/services/context";
import { listServices, listServicesPage } from "@levelrail/services/service/view";
import { LevelrailError } from "@levelrail/spec/errors";
import { route, searchInput } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";
import { movedRoutes } from "@/lib/moved";

/**
 * Every service the caller can see, with its project and environment (for dashboards);
 * `?environmentId=` filters, `?app=` narrows to one app of it. With `?limit=` (or `?cursor=`) one
 * page, newest first: `{services, nextCursor, total}`, narrowed by `?name=` (a part of it) and
 * `?phase=`. Conditional on its ETag (polled).
 */
export const GET = route(async ({ ctx, req }) => {
  const params = new URL(req.url).searchParams;
  const environmentId = params.get("environmentId") || undefined;
  if (environmentId !== undefined && !isUuid(environmentId)) throw new LevelrailError("invalid_input", "environmentId: must be an environment id", { field: "environmentId" });
  if (params.has("limit") || params.has("cursor")) {
    return conditionalJson(req, await listServicesPage({ ctx, input: searchInput(req, ["app", "limit", "cursor", "environmentId", "name", "phase"]) }));
  }
  return conditionalJson(req, await listServices({ ctx, envId: environmentId, app: params.get("app") ?? undefined }));
});

/** 410: a service is created in its environment now (`POST /api/v1/environments/{envId}/services`). */
export const { POST } = movedRoutes("services");
