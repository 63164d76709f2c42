import { restartService } from "@levelrail/services/release/deploy";
import { accepted, route } from "@/lib/api";

export const POST = route<{ name: string }>(async ({ ctx, params }) => accepted(await restartService({ ctx, name: params.name })));
