import { getService } from "@levelrail/services/service/view";
import { deleteService, patchService } from "@levelrail/services/service/write";
import { json, noContent, route } from "@/lib/api";

type Params = { envId: string; service: string };

export const GET = route<Params>(async ({ ctx, params }) => json(await getService({ ctx, envId: params.envId, name: params.service })));

export const PATCH = route<Params>(async ({ ctx, params, body }) =>
  json(await patchService({ ctx, envId: params.envId, name: params.service, input: await body() })),
);

export const DELETE = route<Params>(async ({ ctx, params }) => {
  await deleteService({ ctx, envId: params.envId, name: params.service });
  return noContent();
});
