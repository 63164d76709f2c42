import { createEnvironment } from "@levelrail/services/project/create";
import { listEnvironments } from "@levelrail/services/project/list";
import { created, json, route } from "@/lib/api";

type Params = { id: string };

export const GET = route<Params>(async ({ ctx, params }) => json(await listEnvironments({ ctx, projectId: params.id })));

export const POST = route<Params>(async ({ ctx, params, body }) =>
  created(await createEnvironment({ ctx, projectId: params.id, input: await body() })),
);
