import { createEnvironment } from "@levelrail/services/project/environment";
import { listEnvironments } from "@levelrail/services/project/list";
import { LevelrailError } from "@levelrail/spec/errors";
import { created, json, route } from "@/lib/api";

type Params = { id: string };

export const GET = route<Params>(async ({ ctx, params }) => json(await listEnvironments({ ctx, projectId: params.id })));

/** Body `{"name"}`, or `{"name", "from": environmentId}` to clone one; `?deploy=true` deploys every cloned service. */
export const POST = route<Params>(async ({ ctx, req, params, body }) => {
  const deploy = new URL(req.url).searchParams.get("deploy");
  if (deploy !== null && deploy !== "true" && deploy !== "false") throw new LevelrailError("invalid_input", "deploy: must be true or false", { field: "deploy" });
  return created(await createEnvironment({ ctx, projectId: params.id, input: await body(), deploy: deploy === "true" }));
});
