import { listSecrets } from "@levelrail/services/env/secrets";
import { json, route } from "@/lib/api";

/** Keys and update times only: secrets are write-only. */
export const GET = route<{ envId: string; service: string }>(async ({ ctx, params }) => json(await listSecrets({ ctx, envId: params.envId, name: params.service })));
