import { specText } from "@levelrail/spec/env-spec-read";
import { exportSpec } from "@levelrail/services/spec/export";
import { json, route } from "@/lib/api";

type Params = { envId: string };

/** The environment as a spec (docs/operating/projects-environments-spec.md#config-as-code-export-diff-apply): JSON like every route, YAML (the file `levelrail export` prints) when the caller accepts YAML. */
export const GET = route<Params>(async ({ ctx, req, params }) => {
  const doc = await exportSpec({ ctx, envId: params.envId });
  if (!/yaml/.test(req.headers.get("accept") ?? "")) return json(doc);
  return new Response(specText(doc), { headers: { "content-type": "application/yaml; charset=utf-8" } });
});
