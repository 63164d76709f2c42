import { listSecrets } from "@levelrail/services/env/secrets";
import { json, route } from "@/lib/api";

/** Keys and update times only: secrets are write-only. */
export const GET = route<{ name: string }>(async ({ ctx, params }) => json(await listSecrets({ ctx, name: params.name })));
