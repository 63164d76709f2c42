import { rollbackService } from "@levelrail/services/release/deploy";
import { accepted, route } from "@/lib/api";

export const POST = route<{ name: string }>(async ({ ctx, params }) => accepted(await rollbackService({ ctx, name: params.name })));
