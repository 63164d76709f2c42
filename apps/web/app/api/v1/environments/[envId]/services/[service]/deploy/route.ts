import { deployService } from "@levelrail/services/release/deploy";
import { accepted, route } from "@/lib/api";

/** Body `{"image": "..."}` is optional; the release is recorded and the worker converges to it. */
export const POST = route<{ envId: string; service: string }>(async ({ ctx, params, body }) =>
  accepted(await deployService({ ctx, envId: params.envId, name: params.service, input: await body() })),
);
