import { listServices, listServicesPage } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { created, route, searchInput } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

/**
 * Every service, by app and name; `?app=<name>` lists one app's. With `?limit=` (or `?cursor=`)
 * one page, newest first: `{services, nextCursor, total}`. Conditional on its ETag (polled).
 */
export const GET = route(async ({ ctx, req }) => {
  const params = new URL(req.url).searchParams;
  if (params.has("limit") || params.has("cursor")) {
    return conditionalJson(req, await listServicesPage({ ctx, input: searchInput(req, ["app", "limit", "cursor"]) }));
  }
  return conditionalJson(req, await listServices({ ctx, app: params.get("app") ?? undefined }));
});

export const POST = route(async ({ ctx, body }) => created(await createService({ ctx, input: await body() })));
