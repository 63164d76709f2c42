import { applySpec } from "@levelrail/services/spec/apply";
import { json, route } from "@/lib/api";

type Params = { envId: string };

/**
 * Body `{spec: "<YAML text>" | {…the document}, secrets?: {KEY: value}}` (CONTRACT §10). `?dryRun=true`
 * answers the plan and writes nothing; `?prune=true` deletes what the spec leaves out; `?force=true`
 * applies over a newer resourceVersion; `?deploy=true` deploys what changed.
 */
export const POST = route<Params>(async ({ ctx, req, params, body }) => {
  const q = new URL(req.url).searchParams;
  const flag = (name: string) => q.get(name) === "true";
  return json(await applySpec({ ctx, envId: params.envId, input: await body(), opts: { dryRun: flag("dryRun"), prune: flag("prune"), force: flag("force"), deploy: flag("deploy") } }));
});
