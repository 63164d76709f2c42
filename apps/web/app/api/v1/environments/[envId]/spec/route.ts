import { specText } from "@levelrail/spec/env-spec-read";
import { exportSpec } from "@levelrail/services/spec/export";
import { json, route } from "@/lib/api";

type Params = { envId: string };

/** The environment as a spec (CONTRACT §10): YAML, or JSON when the caller accepts `application/json` and not YAML. */
export const GET = route<Params>(async ({ ctx, req, params }) => {
  const doc = await exportSpec({ ctx, envId: params.envId });
  const accept = req.headers.get("accept") ?? "";
  if (/application\/json/.test(accept) && !/yaml/.test(accept)) return json(doc);
  return new Response(specText(doc), { headers: { "content-type": "application/yaml; charset=utf-8" } });
});
