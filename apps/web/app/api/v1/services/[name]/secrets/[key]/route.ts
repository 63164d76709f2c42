import { deleteSecret, putSecret } from "@levelrail/services/env/secrets";
import { json, noContent, route } from "@/lib/api";

type Params = { name: string; key: string };

/** Body `{"value": "..."}`; answers `{key, updatedAt}`, never the value. */
export const PUT = route<Params>(async ({ ctx, params, body }) =>
  json(await putSecret({ ctx, name: params.name, key: params.key, input: await body() })),
);

export const DELETE = route<Params>(async ({ ctx, params }) => {
  await deleteSecret({ ctx, name: params.name, key: params.key });
  return noContent();
});
