import { listBuilds } from "@levelrail/services/build/view";
import { requestBuild } from "@levelrail/services/build/request";
import { accepted, route } from "@/lib/api";
import { conditionalJson } from "@/lib/etag";

type Params = { envId: string; service: string };

/** The service's builds, newest first; `?limit=`. Conditional on its ETag (polled while a build runs). */
export const GET = route<Params>(async ({ ctx, req, params }) => {
  const limit = Number(new URL(req.url).searchParams.get("limit") ?? "") || undefined;
  return conditionalJson(req, await listBuilds({ ctx, envId: params.envId, name: params.service, ...(limit ? { limit } : {}) }));
});

/** Build the head of the source's ref now (body `{ref?, deploy?}`): 202 with the queued build. */
export const POST = route<Params>(async ({ ctx, params, body }) => accepted(await requestBuild({ ctx, envId: params.envId, name: params.service, input: await body() })));
