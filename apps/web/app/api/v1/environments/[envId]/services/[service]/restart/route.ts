import { restartService } from "@levelrail/services/release/deploy";
import { accepted, route } from "@/lib/api";

export const POST = route<{ envId: string; service: string }>(async ({ ctx, params }) => accepted(await restartService({ ctx, envId: params.envId, name: params.service })));
