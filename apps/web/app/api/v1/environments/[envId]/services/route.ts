import { findEnvironment } from "@levelrail/services/project/list";
import { listServices, listServicesPage } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { created, route, searchInput } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

type Params = { envId: string };

/**
 * The environment's services, by app and name; `?app=<name>` lists one app's. With `?limit=` (or
 * `?cursor=`) one page, newest first: `{services, nextCursor, total}`. Conditional on its ETag (polled).
 */
export const GET = route<Params>(async ({ ctx, req, params }) => {
  const query = new URL(req.url).searchParams;
  if (query.has("limit") || query.has("cursor")) {
    const env = await findEnvironment(ctx, params.envId, "service.read");
    return conditionalJson(req, await listServicesPage({ ctx, input: { ...searchInput(req, ["app", "limit", "cursor"]), environmentId: env.id } }));
  }
  return conditionalJson(req, await listServices({ ctx, envId: params.envId, app: query.get("app") ?? undefined }));
});

/** Body: a service (docs/operating/services-and-deploys.md) without `environmentId`, or with this one. */
export const POST = route<Params>(async ({ ctx, params, body }) => created(await createService({ ctx, envId: params.envId, input: await body() })));
