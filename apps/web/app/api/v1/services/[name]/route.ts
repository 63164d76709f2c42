import { getService } from "@levelrail/services/service/view";
import { deleteService, patchService } from "@levelrail/services/service/write";
import { json, noContent, route } from "@/lib/api";

type Params = { name: string };

export const GET = route<Params>(async ({ ctx, params }) => json(await getService({ ctx, name: params.name })));

export const PATCH = route<Params>(async ({ ctx, params, body }) =>
  json(await patchService({ ctx, name: params.name, input: await body() })),
);

export const DELETE = route<Params>(async ({ ctx, params }) => {
  await deleteService({ ctx, name: params.name });
  return noContent();
});
