import { deleteSecret, putSecret } from "@levelrail/services/env/secrets";
import { json, noContent, route } from "@/lib/api";

type Params = { envId: string; service: string; key: string };

/** Body `{"value": "..."}`; answers `{key, updatedAt}`, never the value. */
export const PUT = route<Params>(async ({ ctx, params, body }) =>
  json(await putSecret({ ctx, envId: params.envId, name: params.service, key: params.key, input: await body() })),
);

export const DELETE = route<Params>(async ({ ctx, params }) => {
  await deleteSecret({ ctx, envId: params.envId, name: params.service, key: params.key });
  return noContent();
});
