import { cancelBuild } from "@levelrail/services/build/request";
import { accepted, route } from "@/lib/api";

/** Cancel a queued or running build (a running one is stopped on the engine): 202 with the build. */
export const POST = route<{ envId: string; service: string; id: string }>(async ({ ctx, params }) =>
  accepted(await cancelBuild({ ctx, envId: params.envId, name: params.service, id: params.id })),
);
