import { promoteService } from "@levelrail/services/release/deploy";
import { accepted, route } from "@/lib/api";

/** Body `{"to": environmentId}`: the same-named service there deploys the exact image id running here. */
export const POST = route<{ envId: string; service: string }>(async ({ ctx, params, body }) =>
  accepted(await promoteService({ ctx, envId: params.envId, name: params.service, input: await body() })),
);
