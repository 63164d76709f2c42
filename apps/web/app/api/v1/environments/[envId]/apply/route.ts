import { applySpec } from "@levelrail/services/spec/apply";
import { json, route } from "@/lib/api";

type Params = { envId: string };

const YAML = /^(application|text)\/(x-)?yaml\b/i;

/**
 * Body `{spec: "<YAML text>" | {…the document}, secrets?: {KEY: value}}`, or the exported document
 * itself: as JSON, or as YAML with a YAML content type (`Content-Type: application/yaml`). `?dryRun=true`
 * answers the plan and writes nothing; `?prune=true` deletes what the spec leaves out; `?force=true`
 * applies over a newer resourceVersion; `?deploy=true` deploys what changed.
 */
export const POST = route<Params>(async ({ ctx, req, params, body, text }) => {
  const q = new URL(req.url).searchParams;
  const flag = (name: string) => q.get(name) === "true";
  const input = YAML.test(req.headers.get("content-type") ?? "") ? await text() : await body();
  return json(await applySpec({ ctx, envId: params.envId, input, opts: { dryRun: flag("dryRun"), prune: flag("prune"), force: flag("force"), deploy: flag("deploy") } }));
});
