import { listReleases } from "@levelrail/services/release/deploy";
import { json, route } from "@/lib/api";

export const GET = route<{ name: string }>(async ({ ctx, params }) => json(await listReleases({ ctx, name: params.name })));
